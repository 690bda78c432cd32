/**
 * Asking a 2026-07-28 client mid-call. That era has no server→client requests: the server
 * returns `input_required` (embedded requests + opaque `requestState`) and the client retries the
 * same call with the answers. A gateway call cannot restart at every round (the tool may already
 * run), so the call stays suspended here, keyed by an unguessable token sent as `requestState`;
 * the retry resumes it. A retry must name the same tool and arguments; a call whose client does
 * not come back within one extension step is cancelled, and at most `maxSuspended` calls wait.
 * @module
 */
import { randomBytes } from 'node:crypto';
import { LIMITS, onAbort } from '@clat/kernel';
import {
  type CallToolResult,
  type InputRequest,
  type InputRequiredResult,
  inputRequired,
  type ServerContext,
} from '@modelcontextprotocol/server';
import type { AskClient } from './client-asks.js';

export const INPUT_ROUND_LIMITS = {
  /** How long a suspended call waits for the client's retry. */
  retryWaitMs: LIMITS.toolCallExtensionStepMs,
  /** Calls that may wait for input at once (across every connection). */
  maxSuspended: 16,
} as const;

interface PendingInput {
  request: InputRequest;
  resolve(answer: unknown): void;
  reject(error: Error): void;
}

interface SuspendedCall {
  readonly token: string;
  readonly callId: string;
  readonly tool: string;
  readonly argsJson: string;
  readonly controller: AbortController;
  readonly pending: Map<string, PendingInput>;
  result: Promise<CallToolResult>;
  /** Set while a round waits: wakes it when the call needs input. */
  wake: (() => void) | undefined;
  timer: ReturnType<typeof setTimeout> | undefined;
  nextKey: number;
}

export type StartCall = (ask: AskClient, signal: AbortSignal) => Promise<CallToolResult>;

function errorResult(text: string): CallToolResult {
  return { content: [{ type: 'text', text }], isError: true };
}

export class InputRounds {
  readonly #calls = new Map<string, SuspendedCall>();
  readonly #limits: { retryWaitMs: number; maxSuspended: number };
  readonly #shutdown: AbortSignal;

  constructor(
    shutdown: AbortSignal,
    limits: { retryWaitMs: number; maxSuspended: number } = INPUT_ROUND_LIMITS,
  ) {
    this.#shutdown = shutdown;
    this.#limits = limits;
  }

  /** Calls now suspended or running through rounds (for status and tests). */
  get size(): number {
    return this.#calls.size;
  }

  /** The call id of the suspended call a retried round resumes, if it still waits. */
  callIdOf(ctx: ServerContext): string | undefined {
    const state = ctx.mcpReq.requestState();
    return typeof state === 'string' ? this.#calls.get(state)?.callId : undefined;
  }

  /**
   * Serves one round of `tools/call`: starts the call (as `callId`), or resumes the one
   * `requestState` names.
   */
  async serve(
    ctx: ServerContext,
    tool: string,
    args: unknown,
    callId: string,
    start: StartCall,
  ): Promise<CallToolResult | InputRequiredResult> {
    const state = ctx.mcpReq.requestState();
    const argsJson = JSON.stringify(args ?? {});
    let call: SuspendedCall | undefined;
    if (typeof state === 'string') {
      call = this.#calls.get(state);
      if (call === undefined || call.tool !== tool || call.argsJson !== argsJson) {
        return errorResult(
          `the input round of ${tool} expired or belongs to another call; call ${tool} again`,
        );
      }
      this.#resume(call, ctx.mcpReq.inputResponses);
    } else {
      if (this.#calls.size >= this.#limits.maxSuspended) {
        return errorResult(
          `${this.#limits.maxSuspended} gateway calls already wait for their MCP client's input; answer or cancel one, then call ${tool} again`,
        );
      }
      call = this.#begin(callId, tool, argsJson, start);
    }
    return this.#round(call, ctx.mcpReq.signal);
  }

  #begin(callId: string, tool: string, argsJson: string, start: StartCall): SuspendedCall {
    const controller = new AbortController();
    const call: SuspendedCall = {
      token: randomBytes(24).toString('base64url'),
      callId,
      tool,
      argsJson,
      controller,
      pending: new Map(),
      result: Promise.resolve({ content: [] }),
      wake: undefined,
      timer: undefined,
      nextKey: 1,
    };
    const detachShutdown = onAbort(this.#shutdown, () => controller.abort(this.#shutdown.reason));
    const ask: AskClient = (request, signal) =>
      new Promise((resolve, reject) => {
        if (signal.aborted) {
          reject(signal.reason);
          return;
        }
        const key = `clat-${call.nextKey++}`;
        const detach = onAbort(signal, () => {
          call.pending.delete(key);
          reject(signal.reason);
        });
        call.pending.set(key, {
          request,
          resolve: (answer) => {
            detach();
            resolve(answer);
          },
          reject: (error) => {
            detach();
            reject(error);
          },
        });
        call.wake?.();
      });
    this.#calls.set(call.token, call);
    call.result = start(ask, controller.signal).finally(() => {
      detachShutdown();
      clearTimeout(call.timer);
      this.#calls.delete(call.token);
    });
    return call;
  }

  #resume(call: SuspendedCall, responses: Record<string, unknown> | undefined): void {
    clearTimeout(call.timer);
    call.timer = undefined;
    const pending = [...call.pending];
    call.pending.clear();
    for (const [key, input] of pending) {
      const answer = responses?.[key];
      if (answer === undefined) {
        input.reject(new Error(`the MCP client retried ${call.tool} without answering ${key}`));
      } else input.resolve(answer);
    }
  }

  /** Waits for the result or for the next input the call needs, whichever comes first. */
  async #round(
    call: SuspendedCall,
    signal: AbortSignal,
  ): Promise<CallToolResult | InputRequiredResult> {
    // This round's cancellation cancels the call; after an input_required it no longer does.
    const detach = onAbort(signal, () => call.controller.abort(signal.reason));
    try {
      const next = await Promise.race([
        call.result,
        new Promise<'input'>((resolve) => {
          call.wake = () => resolve('input');
          if (call.pending.size > 0) resolve('input');
        }),
      ]);
      if (next !== 'input') return next;
      const inputRequests: Record<string, InputRequest> = {};
      for (const [key, input] of call.pending) inputRequests[key] = input.request;
      call.timer = setTimeout(
        () =>
          call.controller.abort(
            new Error(
              `the MCP client did not answer the input of ${call.tool} within ${this.#limits.retryWaitMs} ms`,
            ),
          ),
        this.#limits.retryWaitMs,
      );
      call.timer.unref?.();
      return inputRequired({ inputRequests, requestState: call.token });
    } finally {
      call.wake = undefined;
      detach();
    }
  }
}

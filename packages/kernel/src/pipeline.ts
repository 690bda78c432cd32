/**
 * The one tool execution pipeline: lookup → permission (mode table, then approver) → invoke with
 * the run's cancel signal → result bound. Every step emits run events.
 * @module
 */
import { approvalRefusal } from './approval-refusal.js';
import { abortable, cancelledError } from './cancel.js';
import { decide, type Effect, type PermissionMode } from './effects.js';
import { errorMessage, isClatError, KernelError, KernelErrorCode } from './errors.js';
import type { RunEventOf, RunEventStream, ToolSourceRef } from './events.js';
import { isJsonObject, type JsonObject, utf8Length } from './json.js';
import { LIMITS } from './limits.js';
import type { ApprovalDecision, Approver, UserAsker } from './ports.js';
import type { ToolCallContext, ToolProgress, ToolRegistry, ToolResult } from './tool-registry.js';

/** The result-limit error: one sentence naming the tool and the plugin it came from. */
function resultTooLarge(name: string, source: ToolSourceRef, bytes: number): KernelError {
  const from = source.id === '' ? '' : ` of ${source.kind} plugin ${JSON.stringify(source.id)}`;
  return new KernelError(
    KernelErrorCode.LIMIT_EXCEEDED,
    `tool ${name}${from} returned ${bytes} bytes, over the tool result limit of ${LIMITS.toolResultBytes} bytes`,
  );
}

/** What the pipeline needs to know about the active run. */
export interface RunContext {
  runId: string;
  mode: PermissionMode;
  signal: AbortSignal;
  /** Absent in headless runs: every `ask` then fails closed. */
  approver?: Approver;
  /** Absent in headless runs: `ask_user` and elicitation then fail. */
  asker?: UserAsker;
}

export interface PipelineCallOptions {
  callId?: string;
  /** Name shown to the approver instead of the tool name (host calls: `mcp:<server>:host:<tool>`). */
  approvalName?: string;
  /** Who asked for this call when it is not the model (a plugin's host-tool call). */
  requestedBy?: ToolSourceRef;
  reason?: string;
}

export interface PermissionCheck {
  runId: string;
  callId: string;
  tool: string;
  effect: Effect;
  source: ToolSourceRef;
  reason: string;
  arguments: unknown;
}

let nextCallId = 1;

/** Mode table first; `ask` goes to the approver. Throws PERMISSION_DENIED or CANCELLED. */
export async function checkPermission(
  run: RunContext,
  check: PermissionCheck,
  events: RunEventStream,
): Promise<'policy' | 'user'> {
  const verdict = decide(run.mode, check.effect);
  const deny = (reason: string): never => {
    events.emit({
      type: 'tool.denied',
      runId: run.runId,
      at: Date.now(),
      callId: check.callId,
      tool: check.tool,
      reason,
    });
    throw new KernelError(
      KernelErrorCode.PERMISSION_DENIED,
      `${check.tool} was not approved: ${reason}`,
      {
        data: { tool: check.tool, effect: check.effect },
      },
    );
  };
  if (verdict === 'allow') return 'policy';
  if (verdict === 'deny') return deny(`the ${run.mode} mode denies ${check.effect} effects`);
  if (run.approver === undefined) {
    return deny(`${check.effect} needs approval and no approver is attached (headless)`);
  }
  let decision: ApprovalDecision;
  try {
    decision = await abortable(
      run.approver.approve(
        {
          callId: check.callId,
          tool: check.tool,
          effect: check.effect,
          source: check.source,
          reason: check.reason,
          arguments: check.arguments,
        },
        run.signal,
      ),
      run.signal,
      `approval of ${check.tool}`,
    );
  } catch (error) {
    if (run.signal.aborted) throw cancelledError(run.signal, `approval of ${check.tool}`);
    return deny(`approver failed: ${errorMessage(error)}`);
  }
  const refusal = approvalRefusal(decision);
  if (refusal !== undefined) return deny(refusal);
  return 'user';
}

export class ToolPipeline {
  readonly #registry: ToolRegistry;
  readonly #events: RunEventStream;

  constructor(options: { registry: ToolRegistry; events: RunEventStream }) {
    this.#registry = options.registry;
    this.#events = options.events;
  }

  get registry(): ToolRegistry {
    return this.#registry;
  }

  get events(): RunEventStream {
    return this.#events;
  }

  /**
   * Runs one tool call. Tool-level failures come back as `isError` results; host failures
   * (unknown tool, denial, cancellation, oversized result) throw KernelError; a tool's own
   * ClatError is rethrown with its code, anything else becomes INTERNAL.
   */
  async call(
    name: string,
    args: unknown,
    run: RunContext,
    options: PipelineCallOptions = {},
  ): Promise<ToolResult> {
    const tool = this.#registry.get(name);
    if (tool === undefined) {
      throw new KernelError(
        KernelErrorCode.TOOL_NOT_FOUND,
        `tool ${JSON.stringify(name)} is not registered`,
      );
    }
    if (run.signal.aborted) throw cancelledError(run.signal, `tool ${name}`);
    if (args !== undefined && args !== null && !isJsonObject(args)) {
      throw new KernelError(
        KernelErrorCode.TOOL_INVALID_ARGUMENTS,
        `arguments of ${name} must be a JSON object, got ${Array.isArray(args) ? 'an array' : typeof args}`,
      );
    }
    const argsObject: JsonObject = isJsonObject(args) ? args : {};
    const callId = options.callId ?? `call-${nextCallId++}`;
    const { definition } = tool;
    const runId = run.runId;
    // Plain literals only on this path: on Node 20 a spread-then-add literal costs microseconds.
    this.#events.emit({
      type: 'tool.requested',
      runId,
      at: Date.now(),
      callId,
      tool: name,
      effect: definition.effect,
      source: definition.source,
      arguments: argsObject,
    });
    // The mode table alone settles most calls; only an `ask` needs the asynchronous approver.
    const by =
      decide(run.mode, definition.effect) === 'allow'
        ? 'policy'
        : await checkPermission(
            run,
            {
              runId,
              callId,
              tool: options.approvalName ?? name,
              effect: definition.effect,
              source: options.requestedBy ?? definition.source,
              reason: options.reason ?? definition.description,
              arguments: argsObject,
            },
            this.#events,
          );
    this.#events.emit({ type: 'tool.approved', runId, at: Date.now(), callId, tool: name, by });
    const started = Date.now();
    this.#events.emit({ type: 'tool.started', runId, at: started, callId, tool: name });
    const ctx: ToolCallContext = {
      callId,
      run: {
        id: runId,
        mode: run.mode,
        approver: run.approver,
        asker: run.asker,
        signal: run.signal,
      },
      signal: run.signal,
    };
    if (options.requestedBy !== undefined) ctx.requestedBy = options.requestedBy;
    ctx.progress = (update) => this.#progress(run, callId, name, update);
    try {
      const result = await abortable(tool.invoke(argsObject, ctx), run.signal, `tool ${name}`);
      const content = result.content;
      // Each UTF-16 unit is at most 3 bytes, so a short result needs no count at all.
      // A rich result counted its own blocks once (`bytes`); a text one is counted here, if at all.
      const bytes =
        result.bytes ?? (content.length * 3 <= LIMITS.toolResultBytes ? 0 : utf8Length(content));
      // The one owner of the result limit: adapters only measure (`ToolResult.bytes`).
      if (bytes > LIMITS.toolResultBytes) throw resultTooLarge(name, definition.source, bytes);
      const at = Date.now();
      this.#events.emit({
        type: 'tool.finished',
        runId,
        at,
        callId,
        tool: name,
        durationMs: at - started,
        isError: result.isError === true,
      });
      return result;
    } catch (error) {
      // A plugin's own code survives (an MCP timeout stays MCP_TIMEOUT); INTERNAL is for bugs.
      const failure = isClatError(error)
        ? error
        : new KernelError(KernelErrorCode.INTERNAL, `tool ${name} failed: ${errorMessage(error)}`, {
            cause: error,
          });
      const at = Date.now();
      this.#events.emit({
        type: 'tool.failed',
        runId,
        at,
        callId,
        tool: name,
        durationMs: at - started,
        error: { code: failure.code, message: failure.message },
      });
      throw failure;
    }
  }

  /** A progress report of a running call becomes a `tool.progress` event; late ones are dropped. */
  #progress(run: RunContext, callId: string, tool: string, update: ToolProgress): void {
    if (run.signal.aborted) return;
    const event: RunEventOf<'tool.progress'> = {
      type: 'tool.progress',
      runId: run.runId,
      at: Date.now(),
      callId,
      tool,
    };
    if (typeof update.progress === 'number' && Number.isFinite(update.progress)) {
      event.progress = update.progress;
    }
    if (typeof update.total === 'number' && Number.isFinite(update.total)) {
      event.total = update.total;
    }
    if (typeof update.message === 'string') event.message = update.message;
    if (update.task !== undefined) event.task = { id: update.task.id, status: update.task.status };
    this.#events.emit(event);
  }
}

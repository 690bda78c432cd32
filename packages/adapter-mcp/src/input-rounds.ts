/**
 * The 2026-07-28 multi-round-trip (MRTR) loop: a `tools/call`, `prompts/get` or `resources/read`
 * answered with `resultType: "input_required"` is retried with the answers. Each listed input
 * request (elicitation, sampling, roots) is served, one after the other, by the same handlers
 * (gates, budget, UserAsker) as a legacy server request; the retry repeats the original params
 * plus `inputResponses` and the server's `requestState` echoed unchanged, under a fresh JSON-RPC
 * id, for at most `MCP_LIMITS.inputRounds` rounds. The whole call keeps one deadline that input
 * work extends exactly like host requests extend a legacy call.
 * @module
 */
import { errorMessage, isJsonObject } from '@clat/kernel';
import { isMcpError, McpError, McpErrorCode } from './errors.js';
import { type HostHandlers, INPUT_REQUEST_METHODS } from './host-requests.js';
import { MCP_LIMITS } from './limits.js';

/** Methods whose results may be `input_required` (spec: only these three). */
export const INPUT_ROUND_METHODS: ReadonlySet<string> = new Set([
  'tools/call',
  'prompts/get',
  'resources/read',
]);

/** One input request of an `input_required` result. */
export interface InputRequest {
  method: string;
  params: Record<string, unknown>;
}

/** A checked `input_required` result. */
export interface InputRequired {
  inputRequests: [key: string, request: InputRequest][];
  requestState?: string;
}

export interface InputRoundsOptions {
  server: string;
  /** Label for errors, e.g. `tools/call deploy`. */
  what: string;
  /** The original params (without `_meta`); every retry repeats them. */
  params: Record<string, unknown>;
  /** The first `input_required` result. */
  first: Record<string, unknown>;
  /** When the original request was sent (the call's deadline counts from it). */
  startedAt: number;
  handlers: HostHandlers;
  /** Sends one retry (a new request, so a fresh JSON-RPC id) and resolves with its result. */
  send(
    params: Record<string, unknown>,
    signal: AbortSignal,
    backstopMs: number,
  ): Promise<Record<string, unknown>>;
  timeoutMs: number;
  /** The deadline extension of host work; absent: input work does not extend the deadline. */
  extension?: { stepMs: number; totalMs: number } | undefined;
  /** Legacy-style host requests pending on the connection (they extend too). */
  hostRequestsPending: () => number;
  signal?: AbortSignal | undefined;
  onDiagnostic: (message: string) => void;
}

function quoted(value: string): string {
  return JSON.stringify(value);
}

const ALLOWED = new Set<string>(INPUT_REQUEST_METHODS);

/** Checks the shape of an `input_required` result; throws MCP_PROTOCOL_VIOLATION naming the part. */
export function readInputRequired(
  server: string,
  what: string,
  result: Record<string, unknown>,
): InputRequired {
  const violation = (detail: string) =>
    new McpError(
      McpErrorCode.MCP_PROTOCOL_VIOLATION,
      `MCP server ${quoted(server)} answered ${what} with an input_required result ${detail}`,
      { server },
    );
  const { inputRequests, requestState } = result;
  if (requestState !== undefined && typeof requestState !== 'string') {
    throw violation('whose requestState is not a string');
  }
  if (inputRequests !== undefined && !isJsonObject(inputRequests)) {
    throw violation('whose inputRequests is not an object');
  }
  const entries: [string, InputRequest][] = [];
  for (const [key, raw] of Object.entries(inputRequests ?? {})) {
    if (!isJsonObject(raw) || typeof raw.method !== 'string') {
      throw violation(`whose input request ${quoted(key)} has no method`);
    }
    if (!ALLOWED.has(raw.method)) {
      throw violation(
        `asking for ${quoted(raw.method)} in input request ${quoted(key)}; only ${INPUT_REQUEST_METHODS.join(', ')} may be asked`,
      );
    }
    if (raw.params !== undefined && !isJsonObject(raw.params)) {
      throw violation(`whose input request ${quoted(key)} has non-object params`);
    }
    entries.push([key, { method: raw.method, params: raw.params ?? {} }]);
  }
  if (entries.length === 0 && requestState === undefined) {
    throw violation('that carries neither inputRequests nor requestState');
  }
  if (entries.length > MCP_LIMITS.inputRequestsPerRound) {
    throw violation(
      `listing ${entries.length} input requests, over the limit of ${MCP_LIMITS.inputRequestsPerRound} per round`,
    );
  }
  return requestState === undefined
    ? { inputRequests: entries }
    : { inputRequests: entries, requestState };
}

/**
 * The call's one deadline across rounds. It fires at `timeoutMs` after the original request;
 * while input or host work is going on (or went on since the last deadline) it moves by one
 * extension step, up to the extension total, as a legacy call's deadline does.
 */
class CallDeadline {
  readonly controller = new AbortController();
  timedOut = false;
  serving = false;
  #servedSinceDeadline = false;
  #extendedMs: number;
  #timer: ReturnType<typeof setTimeout> | undefined;
  readonly #options: InputRoundsOptions;

  constructor(options: InputRoundsOptions) {
    this.#options = options;
    const elapsed = Date.now() - options.startedAt;
    const step = options.extension?.stepMs ?? 0;
    // Extension steps the first request already used (a legacy-style host request in it).
    const used = elapsed > options.timeoutMs && step > 0 ? elapsed - options.timeoutMs : 0;
    this.#extendedMs = step > 0 ? Math.ceil(used / step) * step : 0;
    this.#arm(options.startedAt + options.timeoutMs + this.#extendedMs - Date.now());
  }

  get totalMs(): number {
    return this.#options.timeoutMs + this.#extendedMs;
  }

  /** Marks the end of one input request: it counts as activity for the next deadline. */
  served(): void {
    this.#servedSinceDeadline = true;
  }

  dispose(): void {
    clearTimeout(this.#timer);
  }

  #arm(ms: number): void {
    this.#timer = setTimeout(() => this.#fire(), Math.max(0, ms));
  }

  #fire(): void {
    const ext = this.#options.extension;
    const busy =
      this.serving || this.#servedSinceDeadline || this.#options.hostRequestsPending() > 0;
    if (ext !== undefined && busy && this.#extendedMs + ext.stepMs <= ext.totalMs) {
      this.#extendedMs += ext.stepMs;
      this.#servedSinceDeadline = false;
      this.#arm(ext.stepMs);
      return;
    }
    this.timedOut = true;
    this.controller.abort(`${this.#options.what} timed out after ${this.totalMs} ms`);
  }
}

function abortable(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) {
      reject(signal.reason);
      return;
    }
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * Runs the input rounds of one request until the server answers with anything but
 * `input_required`, and returns that result (the caller checks its resultType).
 */
export async function runInputRounds(
  options: InputRoundsOptions,
): Promise<Record<string, unknown>> {
  const { server, what } = options;
  const deadline = new CallDeadline(options);
  const signal =
    options.signal === undefined
      ? deadline.controller.signal
      : AbortSignal.any([options.signal, deadline.controller.signal]);
  const stopped = (error: unknown): McpError => {
    if (deadline.timedOut) {
      return new McpError(
        McpErrorCode.MCP_TIMEOUT,
        `MCP server ${quoted(server)} did not complete ${what} within ${deadline.totalMs} ms (input rounds included)`,
        { server, cause: error },
      );
    }
    if (isMcpError(error)) return error;
    return new McpError(McpErrorCode.MCP_CANCELLED, `${what} was cancelled`, {
      server,
      cause: options.signal?.reason ?? error,
    });
  };
  let result = options.first;
  try {
    for (let round = 1; ; round++) {
      if (round > MCP_LIMITS.inputRounds) {
        throw new McpError(
          McpErrorCode.MCP_INPUT_ROUNDS_EXCEEDED,
          `MCP server ${quoted(server)} still asked for input after ${MCP_LIMITS.inputRounds} rounds of ${what}; CLAT stopped retrying`,
          { server },
        );
      }
      const required = readInputRequired(server, what, result);
      const responses: Record<string, Record<string, unknown>> = {};
      // One after the other: a person answers one question at a time.
      for (const [key, request] of required.inputRequests) {
        if (signal.aborted) throw stopped(signal.reason);
        responses[key] = await serveOne(options, key, request, deadline, signal).catch(
          (error: unknown) => {
            throw signal.aborted ? stopped(error) : error;
          },
        );
      }
      if (required.inputRequests.length === 0) {
        // A state-only round (load shedding): nothing else slows the loop down.
        await abortable(MCP_LIMITS.inputStateOnlyPacingMs, signal).catch((error: unknown) => {
          throw stopped(error);
        });
      }
      const retry: Record<string, unknown> = { ...options.params };
      if (required.inputRequests.length > 0) retry.inputResponses = responses;
      if (required.requestState !== undefined) retry.requestState = required.requestState;
      options.onDiagnostic(
        `MCP server ${quoted(server)}: ${what} input round ${round} answered ${required.inputRequests.length} request(s); retrying`,
      );
      const backstop = deadline.totalMs + (options.extension?.totalMs ?? 0);
      try {
        result = await options.send(retry, signal, backstop);
      } catch (error) {
        throw signal.aborted ? stopped(error) : error;
      }
      if (result.resultType !== 'input_required') return result;
    }
  } finally {
    deadline.dispose();
  }
}

async function serveOne(
  options: InputRoundsOptions,
  key: string,
  request: InputRequest,
  deadline: CallDeadline,
  signal: AbortSignal,
): Promise<Record<string, unknown>> {
  const { server, what } = options;
  const handler = options.handlers.get(request.method);
  if (handler === undefined) {
    throw new McpError(
      McpErrorCode.MCP_INPUT_FAILED,
      `MCP server ${quoted(server)} asked for ${request.method} (input ${quoted(key)}) during ${what}, a capability CLAT did not declare on this connection`,
      { server },
    );
  }
  deadline.serving = true;
  try {
    return await handler(request.params, { id: key, method: request.method, signal });
  } catch (error) {
    if (signal.aborted) throw error;
    throw new McpError(
      McpErrorCode.MCP_INPUT_FAILED,
      `MCP server ${quoted(server)} asked for ${request.method} (input ${quoted(key)}) during ${what}, which CLAT could not provide: ${errorMessage(error)}`,
      { server, cause: error },
    );
  } finally {
    deadline.serving = false;
    deadline.served();
  }
}

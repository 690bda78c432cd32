/**
 * One outgoing JSON-RPC request of an {@link RpcSession}: its promise, its deadline with the
 * same-connection extension, and cancellation.
 * @module
 */
import type { DeadlineEntry } from './deadline-queue.js';
import { McpError, McpErrorCode } from './errors.js';

export interface RequestOptions {
  timeoutMs: number;
  signal?: AbortSignal | undefined;
  /** Label for errors, e.g. `tools/call weather`. */
  what?: string;
  /** initialize must never be cancelled (spec); everything else sends notifications/cancelled. */
  cancellable?: boolean;
  /** Extend the deadline while this connection serves host requests. */
  extension?: { stepMs: number; totalMs: number } | undefined;
}

/** A response's result and its size as received (frame bytes less the JSON-RPC envelope). */
export interface SizedResult {
  result: Record<string, unknown>;
  /** Undefined when the transport does not report frame sizes. */
  bytes: number | undefined;
}

/** What a pending request reaches of its session. */
export interface RequestHost {
  readonly server: string;
  /** Frees the id and the deadline. */
  release(request: PendingRequest): void;
  /** Gives up on a request: its late answer is dropped quietly; a cancellable one is cancelled. */
  abandon(request: PendingRequest, reason: string): void;
  /** Restarts the deadline for one extension step. */
  extend(request: PendingRequest, ms: number): void;
  cancelled(what: string, signal: AbortSignal | undefined): McpError;
  /** Extending host requests pending now. */
  hostPending(): number;
  /** Extending host requests finished so far. */
  hostFinished(): number;
}

/** One outgoing request: its promise, deadline (with extensions) and cancellation. */
export class PendingRequest implements DeadlineEntry {
  deadlineAt = 0;
  deadlineLane = -1;
  deadlineSlot = 0;
  detachAbort: (() => void) | undefined = undefined;
  /** Ends this request's exchange (HTTP) when it is abandoned; undefined on other transports. */
  exchange: AbortController | undefined = undefined;
  readonly what: string;
  #extendedMs = 0;
  #activityMark: number;
  #done = false;

  readonly session: RequestHost;
  readonly id: number;
  readonly method: string;
  readonly options: RequestOptions;
  readonly #sized: boolean;
  readonly #resolve: (value: Record<string, unknown> | SizedResult) => void;
  readonly #reject: (error: unknown) => void;

  constructor(
    session: RequestHost,
    id: number,
    method: string,
    options: RequestOptions,
    sized: boolean,
    resolve: (value: Record<string, unknown> | SizedResult) => void,
    reject: (error: unknown) => void,
  ) {
    this.session = session;
    this.id = id;
    this.method = method;
    this.options = options;
    this.#sized = sized;
    this.#resolve = resolve;
    this.#reject = reject;
    this.what = options.what ?? method;
    this.#activityMark = session.hostFinished();
  }

  /** Releases the id, the deadline and the abort listener; true the first time only. */
  settle(): boolean {
    if (this.#done) return false;
    this.#done = true;
    this.session.release(this);
    this.detachAbort?.();
    return true;
  }

  complete(result: Record<string, unknown>, bytes: number | undefined): void {
    if (!this.settle()) return;
    this.#resolve(this.#sized ? { result, bytes } : result);
  }

  fail(error: unknown): void {
    if (this.settle()) this.#reject(error);
  }

  abort(): void {
    if (!this.settle()) return;
    this.session.abandon(this, `CLAT cancelled ${this.what}`);
    this.#reject(this.session.cancelled(this.what, this.options.signal));
  }

  expire(): void {
    if (this.#done) return;
    const ext = this.options.extension;
    // A host request pending on this connection now, or one that ran since the last deadline
    // (the server may still be finishing with its answer), buys one more step.
    const host = this.session;
    const busy = host.hostPending() > 0 || host.hostFinished() !== this.#activityMark;
    if (ext !== undefined && busy && this.#extendedMs + ext.stepMs <= ext.totalMs) {
      this.#extendedMs += ext.stepMs;
      this.#activityMark = host.hostFinished();
      host.extend(this, ext.stepMs);
      return;
    }
    const total = this.options.timeoutMs + this.#extendedMs;
    this.settle();
    this.session.abandon(this, `${this.what} timed out after ${total} ms`);
    const server = host.server;
    this.#reject(
      new McpError(
        McpErrorCode.MCP_TIMEOUT,
        `MCP server ${JSON.stringify(server)} did not answer ${this.what} within ${total} ms`,
        { server },
      ),
    );
  }
}

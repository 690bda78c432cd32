/**
 * Bounds the POSTs that carry replies to server-initiated requests: each reply is its own POST, so
 * a server that sends thousands of requests in one stream would otherwise open thousands of
 * sockets at once. A few run, a capped queue waits, the rest are dropped (the caller reports it).
 * @module
 */
import type { JsonRpcMessage } from '@clat/adapter-mcp';
import { describe, type HttpFailures } from './http-failures.js';

/** Reply POSTs in flight at once per connection. */
export const REPLY_POSTS_MAX = 4;
/** Replies waiting for a slot per connection; beyond this they are dropped. */
export const REPLY_QUEUE_MAX = 64;

export class ReplyGate {
  readonly #maxActive: number;
  readonly #maxQueued: number;
  readonly #queue: ((admitted: boolean) => void)[] = [];
  #active = 0;
  #closed = false;
  #dropped = 0;

  constructor(maxActive = REPLY_POSTS_MAX, maxQueued = REPLY_QUEUE_MAX) {
    this.#maxActive = maxActive;
    this.#maxQueued = maxQueued;
  }

  /** Replies dropped so far (for diagnostics). */
  get dropped(): number {
    return this.#dropped;
  }

  /**
   * Posts one reply: `post` runs once a slot is free, and the slot is released after. A reply the
   * full queue (or a closed gate) drops is counted, recorded in `report` and rejected with
   * `HTTP_REPLY_DROPPED`.
   */
  async send(
    reply: JsonRpcMessage,
    report: HttpFailures,
    post: () => Promise<void>,
  ): Promise<void> {
    if (!(await this.acquire())) {
      this.#dropped++;
      const error = report.error(
        'HTTP_REPLY_DROPPED',
        `dropped ${describe(reply)} for ${report.origin}: ${this.#maxActive} replies in flight and ${this.#maxQueued} queued (${this.#dropped} dropped so far)`,
      );
      report.record(error.message);
      throw error;
    }
    try {
      await post();
    } finally {
      this.release();
    }
  }

  /** Resolves true once the reply may be posted (call `release` after), false when dropped. */
  acquire(): Promise<boolean> {
    if (this.#closed) return Promise.resolve(false);
    if (this.#active < this.#maxActive) {
      this.#active++;
      return Promise.resolve(true);
    }
    if (this.#queue.length >= this.#maxQueued) return Promise.resolve(false);
    return new Promise((resolve) => this.#queue.push(resolve));
  }

  release(): void {
    const next = this.#queue.shift();
    if (next !== undefined) next(true);
    else this.#active--;
  }

  /** Drops every waiting reply; later acquisitions fail. */
  close(): void {
    this.#closed = true;
    for (const waiter of this.#queue.splice(0)) waiter(false);
  }
}

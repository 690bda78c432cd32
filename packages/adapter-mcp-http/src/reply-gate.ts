/**
 * Bounds the POSTs that carry replies to server-initiated requests: each reply is its own POST, so
 * a server that sends thousands of requests in one stream would otherwise open thousands of
 * sockets at once. A few run, a capped queue waits, the rest are dropped (the caller reports it).
 * @module
 */

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

  constructor(maxActive = REPLY_POSTS_MAX, maxQueued = REPLY_QUEUE_MAX) {
    this.#maxActive = maxActive;
    this.#maxQueued = maxQueued;
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

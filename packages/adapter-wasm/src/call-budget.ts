/**
 * The time budget of one guest call. It runs while the guest computes and while it waits on
 * ordinary host calls (context, host tools, config): a guest looping on cheap host calls cannot
 * outlive it. Only waits on the user or the model (sampling, elicitation) pause it, and those
 * pauses together may extend the call by at most the extension allowance (the spec's 10 minutes).
 * @module
 */

/** Why a budget expired: the call's own time, or the allowance of user/model waits. */
export type BudgetExpiry = 'budget' | 'extension';

export class CallBudget {
  #remaining: number;
  #extensionLeft: number;
  #startedAt = 0;
  #pausedAt: number | undefined;
  #timer: ReturnType<typeof setTimeout> | undefined;
  readonly #onExpire: (why: BudgetExpiry) => void;

  /**
   * @param ms the call's own budget
   * @param extensionMs the most that paused waits may add, in total
   */
  constructor(ms: number, extensionMs: number, onExpire: (why: BudgetExpiry) => void) {
    this.#remaining = ms;
    this.#extensionLeft = extensionMs;
    this.#onExpire = onExpire;
    this.#run();
  }

  #run(): void {
    this.#startedAt = performance.now();
    this.#timer = setTimeout(() => this.#onExpire('budget'), Math.max(0, this.#remaining));
  }

  /** Stops the clock for a user/model wait; the extension allowance runs instead. */
  pause(): void {
    if (this.#pausedAt !== undefined || this.#timer === undefined) return;
    clearTimeout(this.#timer);
    const now = performance.now();
    this.#remaining -= now - this.#startedAt;
    this.#pausedAt = now;
    this.#timer = setTimeout(() => this.#onExpire('extension'), Math.max(0, this.#extensionLeft));
  }

  /** Restarts the clock after a user/model wait, charging the wait to the allowance. */
  resume(): void {
    if (this.#pausedAt === undefined || this.#timer === undefined) return;
    clearTimeout(this.#timer);
    this.#extensionLeft -= performance.now() - this.#pausedAt;
    this.#pausedAt = undefined;
    this.#run();
  }

  stop(): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
  }
}

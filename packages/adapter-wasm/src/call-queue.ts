/**
 * The per-plugin task queue: one task at a time (an instance is not re-entrant), a bound on
 * waiting calls (excess calls fail fast instead of piling up), and a waiting call whose signal
 * aborts leaves the queue and settles at once instead of after the calls ahead of it.
 * @module
 */

interface Waiting {
  start(): void;
  /** Counted against the bound (tool calls; lifecycle tasks are not). */
  counted: boolean;
}

export class CallQueue {
  readonly #waiting: Waiting[] = [];
  #active = false;

  /** Calls waiting behind the running task. */
  get waitingCalls(): number {
    let count = 0;
    for (const entry of this.#waiting) if (entry.counted) count++;
    return count;
  }

  /**
   * Runs `task` after the tasks ahead of it. With `signal`, an abort while still waiting removes
   * the task and settles it with `onCancel()` right away.
   */
  run<T>(
    task: () => Promise<T>,
    options: { counted?: boolean; signal?: AbortSignal; onCancel?: () => T } = {},
  ): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const { signal, onCancel } = options;
      const onAbort = () => {
        const index = this.#waiting.indexOf(entry);
        if (index === -1 || onCancel === undefined) return;
        this.#waiting.splice(index, 1);
        resolve(onCancel());
      };
      const entry: Waiting = {
        counted: options.counted === true,
        start: () => {
          signal?.removeEventListener('abort', onAbort);
          let running: Promise<T>;
          try {
            running = task();
          } catch (error) {
            running = Promise.reject(error);
          }
          // The queue moves on before the caller resumes, so a caller that awaits one task and
          // then queues another never finds the finished task still counted as running.
          running.then(
            (value) => {
              this.#next();
              resolve(value);
            },
            (error: unknown) => {
              this.#next();
              reject(error);
            },
          );
        },
      };
      if (!this.#active) {
        this.#active = true;
        entry.start();
        return;
      }
      signal?.addEventListener('abort', onAbort, { once: true });
      this.#waiting.push(entry);
    });
  }

  #next(): void {
    const entry = this.#waiting.shift();
    if (entry === undefined) this.#active = false;
    else entry.start();
  }
}

/**
 * Ownership of plugin cleanups: whatever `apply()`, a Service `init`, `ctx.effect` or a
 * registration hands back is collected here and torn down last-in first-out, each step isolated
 * and time-boxed so one stuck cleanup cannot keep the process (and CLAT's shutdown) waiting.
 * @module
 */
import { LIMITS } from '@clat/kernel';
import { DshAdapterError, DshErrorCode, describeError } from './errors.js';

export type Disposer = () => unknown;

export interface CleanupFailure {
  label: string;
  error: DshAdapterError;
}

interface Entry {
  label: string;
  dispose: Disposer;
}

function isIterator(value: object): value is Iterator<unknown> & Iterable<unknown> {
  return (
    typeof (value as Iterator<unknown>).next === 'function' &&
    typeof (value as Iterable<unknown>)[Symbol.iterator] === 'function'
  );
}

function isAsyncIterator(value: object): value is AsyncIterator<unknown> & AsyncIterable<unknown> {
  return (
    typeof (value as AsyncIterator<unknown>).next === 'function' &&
    typeof (value as AsyncIterable<unknown>)[Symbol.asyncIterator] === 'function'
  );
}

function isThenable(value: object): value is PromiseLike<unknown> {
  return typeof (value as PromiseLike<unknown>).then === 'function';
}

export class DisposerStack {
  readonly #entries: Entry[] = [];
  readonly #stepTimeoutMs: number;
  #disposed = false;

  constructor(options: { stepTimeoutMs?: number } = {}) {
    this.#stepTimeoutMs = options.stepTimeoutMs ?? LIMITS.shutdownGraceMs;
  }

  get disposed(): boolean {
    return this.#disposed;
  }

  get size(): number {
    return this.#entries.length;
  }

  /** Adds one disposer; after disposal it runs at once (late registrations never leak). */
  push(dispose: Disposer, label = 'cleanup'): void {
    if (this.#disposed) {
      void this.#runStep({ label, dispose });
      return;
    }
    this.#entries.push({ label, dispose });
  }

  /**
   * Takes ownership of a cleanup in any shape a Cordis plugin returns: a function, an array of
   * them, a promise of one, a disposable object, or a sync/async generator whose yields (and
   * return value) are cleanups. Generators are driven to completion here.
   */
  async own(value: unknown, label = 'cleanup'): Promise<void> {
    if (value === undefined || value === null) return;
    if (typeof value === 'function') {
      this.push(value as Disposer, label);
      return;
    }
    if (typeof value !== 'object') return;
    if (Array.isArray(value)) {
      for (const item of value) await this.own(item, label);
      return;
    }
    if (isThenable(value)) {
      await this.own(await value, label);
      return;
    }
    if (isAsyncIterator(value)) {
      this.push(() => value.return?.(undefined), `${label} (generator)`);
      let step = await value.next();
      while (step.done !== true) {
        await this.own(step.value, label);
        step = await value.next();
      }
      await this.own(step.value, label);
      return;
    }
    if (isIterator(value)) {
      this.push(() => value.return?.(undefined), `${label} (generator)`);
      let step = value.next();
      while (step.done !== true) {
        await this.own(step.value, label);
        step = value.next();
      }
      await this.own(step.value, label);
      return;
    }
    const asyncDispose = (value as { [Symbol.asyncDispose]?: unknown })[Symbol.asyncDispose];
    if (typeof asyncDispose === 'function') {
      this.push(() => asyncDispose.call(value), label);
      return;
    }
    const syncDispose = (value as { [Symbol.dispose]?: unknown })[Symbol.dispose];
    if (typeof syncDispose === 'function') {
      this.push(() => syncDispose.call(value), label);
      return;
    }
    const dispose = (value as { dispose?: unknown }).dispose;
    if (typeof dispose === 'function') this.push(() => dispose.call(value), label);
  }

  /** Runs every disposer once, newest first; failures are collected, never rethrown. */
  async dispose(): Promise<CleanupFailure[]> {
    if (this.#disposed) return [];
    this.#disposed = true;
    const failures: CleanupFailure[] = [];
    while (this.#entries.length > 0) {
      const entry = this.#entries.pop() as Entry;
      const failure = await this.#runStep(entry);
      if (failure !== undefined) failures.push(failure);
    }
    return failures;
  }

  async #runStep(entry: Entry): Promise<CleanupFailure | undefined> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    try {
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(
          () => reject(new Error(`did not finish within ${this.#stepTimeoutMs} ms`)),
          this.#stepTimeoutMs,
        );
      });
      await Promise.race([Promise.resolve().then(() => entry.dispose()), timeout]);
      return undefined;
    } catch (error) {
      return {
        label: entry.label,
        error: new DshAdapterError(
          DshErrorCode.CLEANUP_FAILED,
          `cleanup ${entry.label} failed: ${describeError(error)}`,
          { cause: error },
        ),
      };
    } finally {
      if (timer !== undefined) clearTimeout(timer);
    }
  }
}

/**
 * One cancellation path: every wait in the host takes an AbortSignal, and a CancelToken owns one.
 * @module
 */
import { KernelError, KernelErrorCode } from './errors.js';

/** The error a cancelled wait rejects with. */
export function cancelledError(signal?: AbortSignal, what = 'operation'): KernelError {
  const reason = signal?.reason;
  if (reason instanceof KernelError && reason.code === KernelErrorCode.CANCELLED) return reason;
  // The default reason only repeats the verb ("was cancelled: cancelled").
  const detail = typeof reason === 'string' && reason !== 'cancelled' ? `: ${reason}` : '';
  return new KernelError(KernelErrorCode.CANCELLED, `${what} was cancelled${detail}`, {
    cause: reason,
  });
}

/**
 * One native listener per signal, fanned out to a Set. Node's EventTarget scans its listener list
 * on every add, so a run signal shared by thousands of concurrent calls made adding quadratic;
 * here add and remove are O(1) and no MaxListenersExceededWarning fires.
 */
const fanOuts = new WeakMap<AbortSignal, Set<() => void>>();

/**
 * Calls `listener` once when `signal` aborts (at once, synchronously, if it already has).
 * Returns a disposer that detaches it; calling it after the abort is harmless.
 */
export function onAbort(signal: AbortSignal, listener: () => void): () => void {
  if (signal.aborted) {
    listener();
    return () => {};
  }
  let listeners = fanOuts.get(signal);
  if (listeners === undefined) {
    const set = new Set<() => void>();
    listeners = set;
    fanOuts.set(signal, set);
    signal.addEventListener(
      'abort',
      () => {
        fanOuts.delete(signal);
        for (const each of [...set]) {
          set.delete(each);
          each();
        }
      },
      { once: true },
    );
  }
  // The listener itself is the entry unless it is already in the set (a second registration
  // must fire and detach on its own), which saves a closure per call.
  const entry = listeners.has(listener) ? () => listener() : listener;
  listeners.add(entry);
  return () => {
    listeners.delete(entry);
  };
}

/** A cancellation source with children: cancelling a parent cancels every child, never the reverse. */
export class CancelToken {
  readonly #controller = new AbortController();
  readonly #detach: () => void;

  constructor(parent?: AbortSignal) {
    if (parent === undefined) {
      this.#detach = () => {};
      return;
    }
    if (parent.aborted) {
      this.#controller.abort(parent.reason);
      this.#detach = () => {};
      return;
    }
    this.#detach = onAbort(parent, () => this.#controller.abort(parent.reason));
  }

  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  get cancelled(): boolean {
    return this.#controller.signal.aborted;
  }

  cancel(reason: unknown = 'cancelled'): void {
    this.#detach();
    this.#controller.abort(reason);
  }

  child(): CancelToken {
    return new CancelToken(this.signal);
  }

  /** Stops following the parent; call when this token's work is finished to free the listener. */
  dispose(): void {
    this.#detach();
  }

  throwIfCancelled(what?: string): void {
    if (this.cancelled) throw cancelledError(this.signal, what);
  }
}

/** Rejects with CANCELLED as soon as `signal` aborts, whatever `promise` does later. */
export function abortable<T>(
  promise: Promise<T>,
  signal: AbortSignal | undefined,
  what?: string,
): Promise<T> {
  if (signal === undefined) return promise;
  if (signal.aborted) {
    promise.catch(() => {});
    return Promise.reject(cancelledError(signal, what));
  }
  return new Promise<T>((resolve, reject) => {
    const detach = onAbort(signal, () => reject(cancelledError(signal, what)));
    promise.then(
      (value) => {
        detach();
        resolve(value);
      },
      (error: unknown) => {
        detach();
        reject(error);
      },
    );
  });
}

/**
 * Runs `work` with a signal that aborts on the caller's signal or after `ms`. A deadline rejects
 * with TIMEOUT naming `what`; caller cancellation rejects with CANCELLED.
 */
export async function withDeadline<T>(
  work: (signal: AbortSignal) => Promise<T>,
  ms: number,
  what: string,
  signal?: AbortSignal,
): Promise<T> {
  const token = new CancelToken(signal);
  const timeout = new KernelError(KernelErrorCode.TIMEOUT, `${what} timed out after ${ms} ms`, {
    data: { timeoutMs: ms },
  });
  const timer = setTimeout(() => token.cancel(timeout), ms);
  try {
    return await abortable(work(token.signal), token.signal, what).catch((error: unknown) => {
      if (token.signal.reason === timeout) throw timeout;
      throw error;
    });
  } finally {
    clearTimeout(timer);
    token.dispose();
  }
}

/** Resolves after `ms`, or rejects with CANCELLED when `signal` aborts first. */
export function delay(ms: number, signal?: AbortSignal): Promise<void> {
  if (signal?.aborted === true) return Promise.reject(cancelledError(signal, 'delay'));
  return new Promise<void>((resolve, reject) => {
    let detach = () => {};
    const timer = setTimeout(() => {
      detach();
      resolve();
    }, ms);
    if (signal !== undefined) {
      detach = onAbort(signal, () => {
        clearTimeout(timer);
        reject(cancelledError(signal, 'delay'));
      });
    }
  });
}

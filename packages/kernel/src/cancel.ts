/**
 * One cancellation path: every wait in the host takes an AbortSignal, and a CancelToken owns one.
 * @module
 */
import { KernelError, KernelErrorCode } from './errors.js';

/** The error a cancelled wait rejects with. */
export function cancelledError(signal?: AbortSignal, what = 'operation'): KernelError {
  const reason = signal?.reason;
  if (reason instanceof KernelError && reason.code === KernelErrorCode.CANCELLED) return reason;
  const detail = typeof reason === 'string' ? `: ${reason}` : '';
  return new KernelError(KernelErrorCode.CANCELLED, `${what} was cancelled${detail}`, {
    cause: reason,
  });
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
    const onAbort = () => this.#controller.abort(parent.reason);
    parent.addEventListener('abort', onAbort, { once: true });
    this.#detach = () => parent.removeEventListener('abort', onAbort);
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
    const onAbort = () => reject(cancelledError(signal, what));
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
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
  return abortable(
    new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      signal?.addEventListener('abort', () => clearTimeout(timer), { once: true });
    }),
    signal,
    'delay',
  );
}

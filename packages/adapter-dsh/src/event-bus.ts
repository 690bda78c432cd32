/**
 * Process-local Cordis event dispatch: `on/once` (optionally prepended), sync `emit`,
 * `parallel`, `serial`, `bail` and `waterfall`. A leading object or function argument is the
 * `this` of every listener, as in Cordis.
 * @module
 */

export type Listener = (...args: unknown[]) => unknown;

export interface EventOptions {
  prepend?: boolean;
}

export type ListenerErrorReporter = (event: string, error: unknown) => void;

function eventKey(name: unknown): string {
  return typeof name === 'symbol' ? (name.description ?? 'symbol') : String(name);
}

/** `null`, `undefined` and `false` let serial/bail move on to the next listener. */
function isPass(value: unknown): boolean {
  return value === undefined || value === null || value === false;
}

export class EventBus {
  readonly #listeners = new Map<string | symbol, Listener[]>();
  readonly #onListenerError: ListenerErrorReporter;

  constructor(onListenerError: ListenerErrorReporter) {
    this.#onListenerError = onListenerError;
  }

  on(name: string | symbol, listener: Listener, options?: boolean | EventOptions): () => boolean {
    if (typeof listener !== 'function') {
      throw new TypeError(`listener for ${eventKey(name)} must be a function`);
    }
    const prepend = options === true || (typeof options === 'object' && options.prepend === true);
    const list = this.#listeners.get(name) ?? [];
    if (prepend) list.unshift(listener);
    else list.push(listener);
    this.#listeners.set(name, list);
    return () => this.#remove(name, listener);
  }

  once(name: string | symbol, listener: Listener, options?: boolean | EventOptions): () => boolean {
    let dispose: () => boolean = () => false;
    const wrapper: Listener = function (this: unknown, ...args: unknown[]) {
      dispose();
      return listener.apply(this, args);
    };
    dispose = this.on(name, wrapper, options);
    return dispose;
  }

  listenerCount(name: string | symbol): number {
    return this.#listeners.get(name)?.length ?? 0;
  }

  emit(...input: unknown[]): void {
    const { thisArg, name, args } = splitArgs(input);
    for (const listener of this.#snapshot(name)) {
      try {
        const result = listener.apply(thisArg, args);
        if (result instanceof Promise) {
          result.catch((error: unknown) => this.#onListenerError(eventKey(name), error));
        }
      } catch (error) {
        this.#onListenerError(eventKey(name), error);
      }
    }
  }

  async parallel(...input: unknown[]): Promise<void> {
    const { thisArg, name, args } = splitArgs(input);
    const results = await Promise.allSettled(
      this.#snapshot(name).map(async (listener) => listener.apply(thisArg, args)),
    );
    const errors = results.flatMap((r) => (r.status === 'rejected' ? [r.reason as unknown] : []));
    if (errors.length > 0) {
      throw new AggregateError(errors, `${errors.length} listener(s) of ${eventKey(name)} failed`);
    }
  }

  async serial(...input: unknown[]): Promise<unknown> {
    const { thisArg, name, args } = splitArgs(input);
    for (const listener of this.#snapshot(name)) {
      const result = await listener.apply(thisArg, args);
      if (!isPass(result)) return result;
    }
    return undefined;
  }

  bail(...input: unknown[]): unknown {
    const { thisArg, name, args } = splitArgs(input);
    for (const listener of this.#snapshot(name)) {
      const result = listener.apply(thisArg, args);
      if (!isPass(result)) return result;
    }
    return undefined;
  }

  /** Chains listeners: each receives the arguments plus `next`; the last `next` is the final arg. */
  waterfall(...input: unknown[]): unknown {
    const { thisArg, name, args } = splitArgs(input);
    const last = args.pop();
    if (typeof last !== 'function') {
      throw new TypeError(
        `waterfall ${eventKey(name)} needs a final callback as its last argument`,
      );
    }
    const listeners = this.#snapshot(name);
    const step = (index: number): unknown => {
      const listener = listeners[index];
      if (listener === undefined) return (last as Listener).apply(thisArg, args);
      return listener.apply(thisArg, [...args, () => step(index + 1)]);
    };
    return step(0);
  }

  clear(): void {
    this.#listeners.clear();
  }

  #snapshot(name: string | symbol): Listener[] {
    return [...(this.#listeners.get(name) ?? [])];
  }

  #remove(name: string | symbol, listener: Listener): boolean {
    const list = this.#listeners.get(name);
    if (list === undefined) return false;
    const index = list.indexOf(listener);
    if (index < 0) return false;
    list.splice(index, 1);
    return true;
  }
}

function splitArgs(input: unknown[]): { thisArg: unknown; name: string | symbol; args: unknown[] } {
  let thisArg: unknown;
  let rest = input;
  const first = input[0];
  if ((typeof first === 'object' && first !== null) || typeof first === 'function') {
    thisArg = first;
    rest = input.slice(1);
  }
  const name = rest[0];
  if (typeof name !== 'string' && typeof name !== 'symbol') {
    throw new TypeError('event name must be a string or symbol');
  }
  return { thisArg, name, args: rest.slice(1) };
}

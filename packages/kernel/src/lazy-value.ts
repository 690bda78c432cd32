/**
 * A value (a zod schema, a table of them) built on first use instead of at module load. zod
 * binds dozens of methods on every schema instance, so a package's schemas built at import cost
 * milliseconds of every process that loads it (the CLI's startup), used or not.
 * @module
 */

/**
 * Returns a stand-in for `build()` that builds it on first use and then forwards every
 * operation to it (property reads and writes, `in`, `instanceof`, own keys), so callers and
 * other schemas use it as the value itself. `build` runs at most once.
 */
export function lazyValue<T extends object>(build: () => T): T {
  let built: T | undefined;
  const value = (): T => {
    built ??= build();
    return built;
  };
  // The target only anchors the proxy: it stays empty and extensible, so no proxy invariant
  // ties what the handlers report to it.
  return new Proxy(Object.create(null) as T, {
    get: (_target, key) => Reflect.get(value(), key),
    set: (_target, key, next) => Reflect.set(value(), key, next),
    has: (_target, key) => Reflect.has(value(), key),
    ownKeys: () => Reflect.ownKeys(value()),
    getOwnPropertyDescriptor: (_target, key) => {
      const descriptor = Reflect.getOwnPropertyDescriptor(value(), key);
      // A proxy may not report a property non-configurable that its target lacks.
      return descriptor === undefined ? undefined : { ...descriptor, configurable: true };
    },
    defineProperty: (_target, key, descriptor) => Reflect.defineProperty(value(), key, descriptor),
    deleteProperty: (_target, key) => Reflect.deleteProperty(value(), key),
    getPrototypeOf: () => Reflect.getPrototypeOf(value()),
  });
}

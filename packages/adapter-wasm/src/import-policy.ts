/**
 * The import allowlist: a component may import the clat:plugin interfaces and the WASI
 * interfaces our own sandbox implements, nothing else (no sockets, no http). Checked at
 * install/load on the interface list jco reports, before any guest code runs.
 * @module
 */

/** Interfaces (without version) a guest may import. */
export const ALLOWED_IMPORTS: readonly string[] = [
  'clat:plugin/types',
  'clat:plugin/host',
  'clat:plugin/sampling',
  'clat:plugin/elicitation',
  'clat:plugin/config',
  'wasi:io/error',
  'wasi:io/poll',
  'wasi:io/streams',
  'wasi:clocks/monotonic-clock',
  'wasi:clocks/wall-clock',
  'wasi:random/random',
  'wasi:random/insecure',
  'wasi:random/insecure-seed',
  'wasi:cli/environment',
  'wasi:cli/exit',
  'wasi:cli/stdin',
  'wasi:cli/stdout',
  'wasi:cli/stderr',
  'wasi:cli/terminal-input',
  'wasi:cli/terminal-output',
  'wasi:cli/terminal-stdin',
  'wasi:cli/terminal-stdout',
  'wasi:cli/terminal-stderr',
  'wasi:filesystem/types',
  'wasi:filesystem/preopens',
];

/** Strips a `@version` suffix: `wasi:cli/stdout@0.2.3` → `wasi:cli/stdout`. */
export function unversionedInterface(name: string): string {
  const at = name.indexOf('@');
  return at === -1 ? name : name.slice(0, at);
}

/** The imports outside the allowlist, sorted; empty when the component may load. */
export function disallowedImports(imports: readonly string[]): string[] {
  const allowed = new Set(ALLOWED_IMPORTS);
  return [...new Set(imports.map(unversionedInterface))]
    .filter((name) => !allowed.has(name))
    .sort();
}

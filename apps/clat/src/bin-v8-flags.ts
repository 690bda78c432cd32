/**
 * V8 flags the `clat` binary sets for the command it runs (bin/clat.js, before the main bundle
 * loads). The binary owns its process, so it may choose them; the library and other
 * distributions leave V8 as it is.
 *
 * One-shot commands (`clat call`, `clat tools`, `clat mcp`, ...) compile WebAssembly with V8's
 * baseline compiler (Liftoff) only. A WASM guest built by componentize-js is an interpreter
 * (StarlingMonkey), and the few thousand JS instructions of its start are enough for V8's
 * dynamic tiering to recompile the interpreter loop, one 72 KB function, with TurboFan on a
 * background thread: about 130 ms of CPU on the bench VM. The process then waits for that
 * compile at exit (Node joins V8's worker threads, and a function compile cannot be cancelled
 * midway): through the binary, `clat call` of a WASM tool took 753 ms (median) with tiering and
 * 553 ms without, for optimised code that never ran. The interactive session and a headless agent
 * turn keep tiering: they run long enough for optimised guest code to pay off. A function
 * Liftoff cannot compile still goes to TurboFan, as without the flags. Commands that run no tool
 * (`--version`, `trust`, ...) set nothing: any flag costs a start about a millisecond (below).
 * @module
 */
/**
 * One-shot commands that open the project or the plugin store, and so may start a WASM guest or
 * transpile a component (its first load). The session and a headless agent turn (`chat`,
 * `session`, `exec`) run long enough for optimised guest code to pay off; the rest run no tool.
 */
const ONE_SHOT_WITH_TOOLS: ReadonlySet<string> = new Set([
  'call',
  'tools',
  'mcp',
  'plugin',
  'prompts',
  'resources',
]);

/** Liftoff only: no dynamic tier-up, and no eager tier-up in its place. */
const BASELINE_ONLY: readonly string[] = ['--no-wasm-dynamic-tiering', '--no-wasm-tier-up'];

/**
 * Node modules every command of `ONE_SHOT_WITH_TOOLS` loads, loaded before the flags are set.
 * Node's own modules come with a code cache that V8 refuses once any flag differs, so each one
 * loaded afterwards compiles from source (`node:crypto`: 3.2 ms, 6.3 ms after a flag change, on
 * the bench VM); these two were most of what a `clat tools` start lost to the flags.
 */
const LOADED_FIRST: readonly string[] = ['node:crypto', 'node:readline/promises'];

/** The V8 flags `clat <command>` runs with (`command` as `dispatchedCommand` names it). */
export function v8FlagsFor(command: string): readonly string[] {
  return ONE_SHOT_WITH_TOOLS.has(command) ? BASELINE_ONLY : [];
}

/**
 * Sets the V8 flags of `command` in this process. Call it before anything compiles
 * WebAssembly: V8 reads them when it compiles a module.
 * @public bin/clat.js calls it from the built dist/early/boot.cjs
 */
export function setV8FlagsFor(command: string): void {
  const flags = v8FlagsFor(command);
  if (flags.length === 0) return;
  // Loaded here, not imported: the boot bundle would load them for every command.
  for (const id of LOADED_FIRST) process.getBuiltinModule(id);
  const { setFlagsFromString } = process.getBuiltinModule('node:v8');
  for (const flag of flags) setFlagsFromString(flag);
}

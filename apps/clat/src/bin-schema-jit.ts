/**
 * zod's JIT in the `clat` binary: bin/clat.js turns it off for every command that runs, after it
 * loads the main bundle and before main(). The binary owns its process, so it may; the library
 * (`main()` in-process, other distributions) leaves zod as it is, like the V8 flags
 * (bin-v8-flags.ts).
 *
 * zod 4 compiles a fast path for each object schema at its first parse, with `new Function`.
 * V8 keeps code made that way in no code cache, so every start compiles it again. A CLAT process
 * parses most schemas once or a few times (a package manifest, a grants file, plugins.json):
 * through the binary, on the bench VM, the first parse of the `wasm-summarize` manifest (building
 * its schema included) took 11–13 ms with its fast paths and 5–6 ms without; that `clat tools`
 * generates four fast paths, 5–6 ms in all. What a fast path saves a later parse is small (0.18
 * against 0.37 µs for a four-field object, in a loop): it pays back only after tens of thousands
 * of parses of one schema, and no schema is parsed per message or per token (the most a call
 * parses is its arguments or a server's host-tool request, once). So the session runs without it
 * too. Validation does not change: the fast path is zod's shortcut through the same checks. zod
 * decides per schema, when it builds one, so the setting comes before any command module loads.
 * @module
 */
import { COMMAND_CATALOG } from './commands/catalog.js';

/**
 * Whether `clat <command>` (as `dispatchedCommand` names it) runs zod without its JIT: every
 * command main() dispatches to a command module. `version`, `help` and an unknown word load no
 * zod, so they set nothing (setting it would load zod for them).
 */
export function schemaJitOffFor(command: string): boolean {
  return command === 'session' || COMMAND_CATALOG.some((entry) => entry.name === command);
}

/**
 * Turns zod's JIT off for `command` when `schemaJitOffFor` says so. Call it before main().
 * @public bin/clat.js calls it from the built dist/bin/main.cjs
 */
export async function setSchemaJitFor(command: string): Promise<void> {
  if (!schemaJitOffFor(command)) return;
  const { turnZodJitOff } = await import('./zod-jit-off.js');
  turnZodJitOff();
}

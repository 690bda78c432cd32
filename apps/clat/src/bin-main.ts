/**
 * The binary's main bundle (dist/bin/main.cjs, tsup.bin.config.ts): main() and what bin/clat.js
 * sets before it. Not part of the library: `@clat/cli` exports main() alone.
 * @module
 */
/** @public bin/clat.js sets zod's JIT for the command with it, from the built dist/bin/main.cjs */
export { setSchemaJitFor } from './bin-schema-jit.js';
/** @public bin/clat.js runs the command with it, from the built dist/bin/main.cjs */
export { main } from './main.js';

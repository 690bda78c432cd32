/**
 * Figure 7e: one WASM plugin load in a fresh process whose component is unchanged (its transpile
 * cache entry written by an earlier process), the way each `clat` start loads it. The modules are
 * imported before the clock starts; the figure is `mountWasmPlugin` alone. Prints `{ ms }` as its
 * last line. Usage: node wasm-load-worker.mjs <component> <clat home> <project>
 */
import { mountWasm } from './wasm-mount.mjs';

const [componentPath, clatHome, projectRoot] = process.argv.slice(2);
const { scope, elapsed } = await mountWasm({ name: 'fresh', componentPath, clatHome, projectRoot });
await scope.parent.close();
process.stdout.write(`${JSON.stringify({ ms: elapsed })}\n`);

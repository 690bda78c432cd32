/**
 * Figure 7e: one WASM plugin load in a fresh process whose component is unchanged (its transpile
 * cache entry written by an earlier process), the way each `clat` start loads it. The modules are
 * imported before the clock starts; the figure is `mountWasmPlugin` alone. Prints
 * `{ ms, state }` as its last line. Usage: node wasm-load-worker.mjs <component> <clat home> <project>
 */

import { mountWasmPlugin } from '@clat/adapter-wasm';
import {
  createGlobalScope,
  PluginHostBridge,
  RunEventStream,
  ToolPipeline,
  ToolRegistry,
} from '@clat/kernel';

const [componentPath, clatHome, projectRoot] = process.argv.slice(2);
const registry = new ToolRegistry();
const pipeline = new ToolPipeline({ registry, events: new RunEventStream() });
const scope = createGlobalScope('bench-wasm-fresh').child('project');
const t0 = performance.now();
const mounted = await mountWasmPlugin({
  name: 'fresh',
  componentPath,
  registry,
  scope,
  hostServices: new PluginHostBridge({ projectRoot, pipeline }),
  projectRoot,
  clatHome,
});
const ms = performance.now() - t0;
const status = mounted.status();
await scope.parent.close();
process.stdout.write(`${JSON.stringify({ ms, state: status.state, failure: status.failure })}\n`);

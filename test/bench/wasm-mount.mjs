/**
 * One timed WASM plugin mount for figure 7 (in the bench's process, and in wasm-load-worker.mjs
 * for a fresh one): a kernel world of its own, then `mountWasmPlugin` alone on the clock.
 */
import { performance } from 'node:perf_hooks';
import { mountWasmPlugin } from '@clat/adapter-wasm';
import {
  createGlobalScope,
  PluginHostBridge,
  RunEventStream,
  ToolPipeline,
  ToolRegistry,
} from '@clat/kernel';

/** Mounts `componentPath` as plugin `name`; throws unless it connected. Close `scope.parent`. */
export async function mountWasm({ name, componentPath, clatHome, projectRoot }) {
  const registry = new ToolRegistry();
  const pipeline = new ToolPipeline({ registry, events: new RunEventStream() });
  const bridge = new PluginHostBridge({ projectRoot, pipeline });
  const scope = createGlobalScope(`bench-wasm-${name}`).child('project');
  try {
    const t0 = performance.now();
    const mounted = await mountWasmPlugin({
      name,
      componentPath,
      registry,
      scope,
      hostServices: bridge,
      projectRoot,
      clatHome,
    });
    const elapsed = performance.now() - t0;
    const status = mounted.status();
    if (status.state !== 'connected') {
      throw new Error(`WASM guest did not load: ${status.failure ?? status.state}`);
    }
    return { registry, pipeline, scope, elapsed };
  } catch (error) {
    await scope.parent.close();
    throw error;
  }
}

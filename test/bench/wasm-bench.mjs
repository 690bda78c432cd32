/**
 * Figure 7 of `pnpm bench`: a WASM tool call (warm instance) p50/p99 next to the same call to an
 * in-process native tool through the same pipeline, a load whose component is unchanged (cache
 * hit) and a cold load (empty transpile cache). Skips with a reason when the adapter or the
 * guest is missing.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);

async function loadAdapter() {
  try {
    return { mounter: await import('./wasm-mount.mjs') };
  } catch (error) {
    return {
      skipped: `@clat/adapter-wasm is not available (${String(error.message).split('\n')[0]})`,
    };
  }
}

function guestPath() {
  try {
    return { path: require.resolve('@clat-examples/wasm-faults/faults.wasm') };
  } catch {
    return {
      skipped: 'the wasm-faults guest is not built (@clat-examples/wasm-faults/faults.wasm)',
    };
  }
}

export async function runWasmBench({ quick, median, percentile }) {
  const loaded = await loadAdapter();
  if (loaded.skipped) return { skipped: loaded.skipped };
  const guest = guestPath();
  if (guest.skipped) return { skipped: guest.skipped };
  const { mountWasm } = loaded.mounter;
  const clatHome = mkdtempSync(join(tmpdir(), 'clat-bench-wasm-'));
  const projectRoot = mkdtempSync(join(tmpdir(), 'clat-bench-wasm-project-'));
  let cold;
  try {
    // Cold: empty cache (transpile + compile + instantiate); warm: the same component again.
    cold = await mountWasm({ name: 'cold', componentPath: guest.path, clatHome, projectRoot });
    const warmLoads = [];
    const freshLoads = [];
    const worker = join(dirname(fileURLToPath(import.meta.url)), 'wasm-load-worker.mjs');
    // Interleaved: a load in this process (7c), then one in a fresh process (7e). Nine of each:
    // single fresh loads on the bench VM spread over about ±25 ms around their median, so the
    // median of five moved by about 10 ms from run to run. Each warm mount is closed before the
    // fresh process starts, so neither its worker nor its teardown share the CPUs with it.
    for (let i = 0; i < (quick ? 2 : 9); i++) {
      const warm = await mountWasm({
        name: `warm${i}`,
        componentPath: guest.path,
        clatHome,
        projectRoot,
      });
      warmLoads.push(warm.elapsed);
      await warm.scope.parent.close();
      // A failed load exits non-zero with its reason on stderr: execFileSync throws with it.
      const out = execFileSync(process.execPath, [worker, guest.path, clatHome, projectRoot], {
        encoding: 'utf8',
      });
      freshLoads.push(JSON.parse(out.trim().split('\n').pop()).ms);
    }
    const { registry, pipeline, scope } = cold;
    registry.register(
      {
        definition: {
          name: 'native_echo',
          description: 'in-process echo (baseline)',
          inputSchema: { type: 'object' },
          effect: 'pure',
          source: { kind: 'native', id: '' },
        },
        invoke: async (args) => ({ content: JSON.stringify({ args }), structured: { args } }),
      },
      scope,
    );
    const run = { runId: 'bench-wasm', mode: 'full-access', signal: new AbortController().signal };
    const wasmTool = registry
      .list()
      .find((tool) => tool.name.endsWith('_echo') && tool.source.kind === 'wasm');
    if (wasmTool === undefined) throw new Error('the guest has no echo tool');
    const sample = async (tool, n) => {
      const times = [];
      for (let i = 0; i < n; i++) {
        const t0 = performance.now();
        const result = await pipeline.call(tool, { text: `m${i}` }, run);
        times.push(performance.now() - t0);
        if (result.isError) throw new Error(`${tool} failed: ${result.content}`);
      }
      return times;
    };
    const n = quick ? 200 : 2000;
    await sample(wasmTool.name, 100);
    await sample('native_echo', 100);
    const wasmTimes = await sample(wasmTool.name, n);
    const nativeTimes = await sample('native_echo', n);
    const ms = (v) => `${v.toFixed(3)} ms`;
    const loadMs = (v) => `${v.toFixed(1)} ms`;
    return {
      figures: [
        {
          id: '7a',
          name: 'WASM tool call p50, warm instance (floor: an in-process native tool, same pipeline)',
          values: { clat: median(wasmTimes), floor: median(nativeTimes) },
          format: ms,
          goals: [{ absolute: true, max: 0.25 }],
          raw: { calls: n },
        },
        {
          id: '7b',
          name: 'WASM tool call p99, warm instance (floor: the native tool p99)',
          values: { clat: percentile(wasmTimes, 99), floor: percentile(nativeTimes, 99) },
          format: ms,
        },
        {
          id: '7c',
          name: 'WASM plugin load with its component unchanged (cache hit), again in the same process',
          values: { clat: median(warmLoads) },
          format: loadMs,
          goals: [{ absolute: true, max: 150 }],
          raw: { warmMs: warmLoads },
        },
        {
          id: '7d',
          name: 'WASM plugin first load (empty transpile cache: transpile, compile, instantiate)',
          values: { clat: cold.elapsed },
          format: loadMs,
          raw: { coldMs: cold.elapsed },
        },
        {
          id: '7e',
          name: 'WASM plugin load with its component unchanged, in a fresh process (as a `clat` start loads it when its tool list is not remembered, or at its first call)',
          values: { clat: median(freshLoads) },
          format: loadMs,
          goals: [{ absolute: true, max: 150 }],
          raw: { freshMs: freshLoads },
          note: 'mountWasmPlugin alone, modules imported before the clock starts; no compiled module of an earlier load in the process',
        },
      ],
    };
  } finally {
    await cold?.scope.parent.close().catch(() => {});
    rmSync(clatHome, { recursive: true, force: true });
    rmSync(projectRoot, { recursive: true, force: true });
  }
}

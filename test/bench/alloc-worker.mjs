/**
 * Per-call allocation micro-benchmark, in its own process (run with --expose-gc and a young
 * generation large enough that no collection runs while sampling): JS heap bytes retained or
 * not, per call, as the `heapUsed` delta over a batch of calls with GC observed to stay idle.
 * Prints one JSON line: `{ [case]: { heapBytesPerCall, externalBytesPerCall, calls } }`.
 */
import { PerformanceObserver } from 'node:perf_hooks';
import { createGlobalScope, RunEventStream, ToolPipeline, ToolRegistry } from '@clat/kernel';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { BENCH_SERVER, mountClat, NODE, tempHome } from './lib.mjs';

const gc = globalThis.gc;
if (typeof gc !== 'function') throw new Error('run alloc-worker.mjs with --expose-gc');
let collections = 0;
new PerformanceObserver((list) => {
  collections += list.getEntries().length;
}).observe({ entryTypes: ['gc'] });

/** Bytes per call over `calls` sequential calls; retried with fewer calls if a GC ran. */
async function sample(call, calls) {
  for (let i = 0; i < 300; i++) await call(i);
  for (let n = calls; n >= 100; n = Math.floor(n / 2)) {
    gc();
    gc();
    // GC entries arrive asynchronously: let the forced ones land before counting.
    await new Promise((resolve) => setTimeout(resolve, 20));
    const before = process.memoryUsage();
    const seen = collections;
    for (let i = 0; i < n; i++) await call(i);
    const after = process.memoryUsage();
    await new Promise((resolve) => setTimeout(resolve, 20));
    if (collections === seen) {
      return {
        heapBytesPerCall: Math.round((after.heapUsed - before.heapUsed) / n),
        externalBytesPerCall: Math.round((after.external - before.external) / n),
        calls: n,
      };
    }
  }
  return { heapBytesPerCall: null, externalBytesPerCall: null, calls: 0 };
}

const home = tempHome();
const out = {};
try {
  // The pipeline alone around an in-process tool: lookup, permission, events, result bound.
  const registry = new ToolRegistry();
  const events = new RunEventStream();
  events.on(() => {});
  const pipeline = new ToolPipeline({ registry, events });
  const scope = createGlobalScope('alloc').child('project');
  registry.register(
    {
      definition: {
        name: 'native_echo',
        description: 'echo',
        inputSchema: { type: 'object' },
        effect: 'pure',
        source: { kind: 'native', id: '' },
      },
      invoke: async (args) => ({ content: String(args.text) }),
    },
    scope,
  );
  const run = { runId: 'alloc', mode: 'full-access', signal: new AbortController().signal };
  const args = { text: 'ping' };
  out.pipelineNative = await sample(() => pipeline.call('native_echo', args, run), 20_000);
  await scope.parent.close();

  // The whole CLAT path to a stdio server, and the SDK 1.x Client over the same server.
  const clat = await mountClat('alloc', home.dir);
  out.clatStdio = await sample(() => clat.call('echo', args), 4000);
  await clat.close();
  const sdk = new Client({ name: 'alloc', version: '1.0.0' }, { capabilities: {} });
  await sdk.connect(
    new StdioClientTransport({ command: NODE, args: [BENCH_SERVER], stderr: 'ignore' }),
  );
  out.sdkV1Stdio = await sample(() => sdk.callTool({ name: 'echo', arguments: args }), 4000);
  await sdk.close();
} finally {
  home.cleanup();
}
process.stdout.write(`${JSON.stringify(out)}\n`);

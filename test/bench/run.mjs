#!/usr/bin/env node
/**
 * `pnpm bench`: CLAT's performance figures, each a ratio against a baseline measured in the same
 * run on the same machine. Writes bench/results.json and the table in the README's Performance
 * section (between the bench:results markers). Not part of `pnpm test`.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import { dirname, join } from 'node:path';
import { McpClient } from '@clat/adapter-mcp';
import { StdioTransportFactory } from '@clat/adapter-mcp-stdio';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import {
  BENCH_SERVER,
  bareClient,
  HERE,
  median,
  mountClat,
  NODE,
  now,
  percentile,
  rawPipe,
  tempHome,
} from './lib.mjs';

const require = createRequire(import.meta.url);
const QUICK = process.argv.includes('--quick');
const MiB = 1024 * 1024;
const figures = [];

function record(figure) {
  figures.push(figure);
  const ratio = figure.ratio === undefined ? '' : ` → ${figure.ratio.toFixed(2)}×`;
  const line = figure.skipped
    ? `  ${figure.id}. ${figure.name}: skipped: ${figure.skipped}`
    : `  ${figure.id}. ${figure.name}: ${figure.value} vs ${figure.baseline}${ratio}`;
  console.log(line);
}

const ms = (value) => `${value.toFixed(1)} ms`;
const us = (value) => `${(value * 1000).toFixed(0)} µs`;
const mib = (bytes) => `${(bytes / MiB).toFixed(1)} MiB`;

// 1. Parallel startup of 10 stdio servers vs the slowest single one.
async function startup(home) {
  const connect = async (name) => {
    const t0 = now();
    const client = await McpClient.connect({
      name,
      factory: new StdioTransportFactory({
        name,
        command: NODE,
        args: [BENCH_SERVER],
        clatHome: home,
      }),
    });
    await client.listTools();
    const elapsed = now() - t0;
    return { elapsed, close: () => client.close() };
  };
  const rounds = QUICK ? 1 : 3;
  const slowest = [];
  const parallel = [];
  for (let round = 0; round < rounds; round++) {
    const singles = [];
    for (let i = 0; i < 10; i++) {
      const one = await connect(`single${i}`);
      singles.push(one.elapsed);
      await one.close();
    }
    slowest.push(Math.max(...singles));
    const t0 = now();
    const all = await Promise.all(Array.from({ length: 10 }, (_, i) => connect(`parallel${i}`)));
    parallel.push(now() - t0);
    await Promise.all(all.map((one) => one.close()));
  }
  const value = median(parallel);
  const baseline = median(slowest);
  record({
    id: 1,
    name: '10 stdio servers ready in parallel vs the slowest single one',
    value: ms(value),
    baseline: ms(baseline),
    ratio: value / baseline,
    raw: { parallelMs: parallel, slowestSingleMs: slowest },
    note: 'legacy fixture server: failed modern probe + fresh initialize per server',
  });
}

// 2. Per-call overhead: CLAT pipeline vs a bare JSON-RPC round trip over a pipe.
async function perCall(home) {
  const n = QUICK ? 300 : 2000;
  const clat = await mountClat('overhead', home);
  const bare = await bareClient();
  try {
    for (let i = 0; i < 200; i++) {
      await clat.call('echo', { text: 'warm' });
      await bare.call('echo', { text: 'warm' });
    }
    const timeLoop = async (fn) => {
      const t0 = now();
      for (let i = 0; i < n; i++) await fn();
      return (now() - t0) / n;
    };
    const clatTimes = [];
    const bareTimes = [];
    for (let round = 0; round < 3; round++) {
      clatTimes.push(await timeLoop(() => clat.call('echo', { text: 'ping' })));
      bareTimes.push(await timeLoop(() => bare.call('echo', { text: 'ping' })));
    }
    const value = median(clatTimes);
    const baseline = median(bareTimes);
    record({
      id: 2,
      name: 'per-call latency: CLAT pipeline (registry + permission + stdio transport + events) vs bare JSON-RPC over a pipe',
      value: us(value),
      baseline: us(baseline),
      ratio: value / baseline,
      raw: { clatMsPerCall: clatTimes, bareMsPerCall: bareTimes, calls: n, events: clat.events() },
      note: `sequential calls, median of 3 rounds of ${n}; overhead ≈ ${us(value - baseline)} per call`,
    });
  } finally {
    await clat.close();
    await bare.close();
  }
}

// 3. 1,000 concurrent calls on one stdio connection: CLAT vs the MCP TypeScript SDK 1.x Client.
async function throughput(home) {
  const n = 1000;
  const clat = await mountClat('throughput', home);
  const sdk = new Client({ name: 'bench-sdk', version: '1.0.0' }, { capabilities: {} });
  await sdk.connect(
    new StdioClientTransport({ command: NODE, args: [BENCH_SERVER], stderr: 'ignore', cwd: home }),
  );
  try {
    const burst = async (fn) => {
      const t0 = now();
      const results = await Promise.all(Array.from({ length: n }, (_, i) => fn(i)));
      const elapsed = now() - t0;
      if (results.some((r) => r.isError)) throw new Error('a throughput call failed');
      return elapsed;
    };
    const clatCall = (i) => clat.call('echo', { text: `m${i}` });
    const sdkCall = (i) => sdk.callTool({ name: 'echo', arguments: { text: `m${i}` } });
    await burst(clatCall);
    await burst(sdkCall);
    const clatTimes = [];
    const sdkTimes = [];
    for (let round = 0; round < (QUICK ? 2 : 5); round++) {
      clatTimes.push(await burst(clatCall));
      sdkTimes.push(await burst(sdkCall));
    }
    const value = median(clatTimes);
    const baseline = median(sdkTimes);
    record({
      id: 3,
      name: '1,000 concurrent calls on one stdio connection: CLAT pipeline vs @modelcontextprotocol/sdk 1.x Client',
      value: `${ms(value)} (${Math.round((n / value) * 1000)} calls/s)`,
      baseline: `${ms(baseline)} (${Math.round((n / baseline) * 1000)} calls/s)`,
      ratio: value / baseline,
      raw: { clatMs: clatTimes, sdkMs: sdkTimes },
      note: 'time for the whole burst, median of rounds; lower ratio is better',
    });
  } finally {
    await clat.close();
    await sdk.close();
  }
}

// 4a. A 1 MiB tool result end to end vs raw pipe transfer of the same bytes. The limit applies
// to the whole result, so the text is 1 MiB less 1 KiB of room for the JSON-RPC envelope.
async function bigResult(home) {
  const bytes = MiB - 1024;
  const reps = QUICK ? 5 : 20;
  const clat = await mountClat('big', home);
  const raw = rawPipe(bytes);
  try {
    const first = await clat.call('blob', { bytes });
    if (first.content.length !== bytes)
      throw new Error(`blob came back with ${first.content.length} bytes`);
    await raw.roundTrip();
    const clatTimes = [];
    const rawTimes = [];
    for (let i = 0; i < reps; i++) {
      let t0 = now();
      await clat.call('blob', { bytes });
      clatTimes.push(now() - t0);
      t0 = now();
      await raw.roundTrip();
      rawTimes.push(now() - t0);
    }
    const value = median(clatTimes);
    const baseline = median(rawTimes);
    record({
      id: '4a',
      name: '1 MiB tool result end to end vs raw pipe transfer of the same bytes',
      value: ms(value),
      baseline: ms(baseline),
      ratio: value / baseline,
      raw: { clatMs: clatTimes, rawMs: rawTimes },
    });
  } finally {
    await clat.close();
    await raw.close();
  }
}

// 4b. Peak RSS while a server floods frames over the 4 MiB limit (own process).
function floodRss() {
  const out = execFileSync(NODE, [join(HERE, 'rss-worker.mjs')], {
    encoding: 'utf8',
    env: { ...process.env, FRAMES: '16' },
  });
  const result = JSON.parse(out.trim().split('\n').pop());
  record({
    id: '4b',
    name: 'peak RSS while a server floods 16 frames of 4 MiB + 1 byte vs RSS before the flood',
    value: mib(result.peakBytes),
    baseline: mib(result.baselineBytes),
    ratio: result.peakBytes / result.baselineBytes,
    raw: result,
    note: `server attempted ${mib(result.attemptedBytes)}; outcome: ${result.outcome}`,
  });
}

// 5. WASM tool call p50/p99 warm and cold load.
async function wasm() {
  const bench = join(HERE, 'wasm-bench.mjs');
  if (!existsSync(bench)) {
    record({
      id: 5,
      name: 'WASM tool call p50/p99 warm, cold load',
      skipped: 'no WASM benchmark driver (bench/wasm-bench.mjs)',
    });
    return;
  }
  const { runWasmBench } = await import(bench);
  const result = await runWasmBench({ quick: QUICK, median, percentile });
  if (result.skipped !== undefined) {
    record({ id: 5, name: 'WASM tool call p50/p99 warm, cold load', skipped: result.skipped });
    return;
  }
  for (const figure of result.figures) record(figure);
}

// 6. `clat --version` cold start vs `node -e 0`.
function coldStart() {
  const cliDir = dirname(require.resolve('@clat/cli/package.json'));
  const bin = join(cliDir, 'bin', 'clat.js');
  const reps = QUICK ? 5 : 15;
  const time = (args) => {
    const t0 = now();
    const result = spawnSync(NODE, args, { encoding: 'utf8' });
    const elapsed = now() - t0;
    if (result.status !== 0)
      throw new Error(`${args.join(' ')} exited with ${result.status}: ${result.stderr}`);
    return { elapsed, stdout: result.stdout };
  };
  const version = time([bin, '--version']).stdout.trim();
  if (version === '') throw new Error('clat --version printed nothing');
  time(['-e', '0']);
  const clatTimes = [];
  const nodeTimes = [];
  for (let i = 0; i < reps; i++) {
    clatTimes.push(time([bin, '--version']).elapsed);
    nodeTimes.push(time(['-e', '0']).elapsed);
  }
  const value = median(clatTimes);
  const baseline = median(nodeTimes);
  record({
    id: 6,
    name: '`clat --version` cold start vs `node -e 0`',
    value: ms(value),
    baseline: ms(baseline),
    ratio: value / baseline,
    raw: { clatMs: clatTimes, nodeMs: nodeTimes, version },
  });
}

function table() {
  const rows = figures.map((f) =>
    f.skipped
      ? `| ${f.id} | ${f.name} | — | — | skipped: ${f.skipped} |`
      : `| ${f.id} | ${f.name} | ${f.value} | ${f.baseline} | **${f.ratio.toFixed(2)}×** |`,
  );
  return [
    '| # | Figure | CLAT | Baseline | Ratio |',
    '| --- | --- | --- | --- | --- |',
    ...rows,
  ].join('\n');
}

/** Formats the committed results the way `pnpm lint` expects (biome), when biome is installed. */
function formatWithBiome(file) {
  let biome;
  try {
    biome = require.resolve('@biomejs/biome/bin/biome');
  } catch {
    console.log('biome is not installed; results.json left unformatted');
    return;
  }
  spawnSync(NODE, [biome, 'format', '--write', file], { stdio: 'ignore' });
}

function updateReadme(machine) {
  const readme = join(HERE, '..', '..', 'README.md');
  const text = readFileSync(readme, 'utf8');
  const start = '<!-- bench:results -->';
  const end = '<!-- /bench:results -->';
  const from = text.indexOf(start);
  const to = text.indexOf(end);
  if (from === -1 || to === -1 || to < from) {
    console.log('README has no bench:results markers; table not written there');
    return;
  }
  const body = `\n_Last run: ${machine}._\n\n${table()}\n`;
  writeFileSync(readme, text.slice(0, from + start.length) + body + text.slice(to));
}

const home = tempHome();
const started = new Date();
console.log(
  `CLAT benchmarks${QUICK ? ' (quick)' : ''}: each figure is CLAT vs a baseline from this run`,
);
try {
  await startup(home.dir);
  await perCall(home.dir);
  await throughput(home.dir);
  await bigResult(home.dir);
  floodRss();
  await wasm();
  coldStart();
} finally {
  home.cleanup();
}
const machine = `${started.toISOString().slice(0, 10)}, Node ${process.version}, ${os.platform()} ${os.arch()}, ${os.cpus().length} CPUs (${os.cpus()[0]?.model.trim() ?? 'unknown'}), load ${os.loadavg()[0].toFixed(1)}`;
const results = {
  generatedAt: started.toISOString(),
  machine,
  quick: QUICK,
  figures: figures.map(({ raw, ...figure }) => ({ ...figure, raw })),
};
// Quick smoke runs never replace the committed results of a full run.
const resultsFile = QUICK
  ? join(os.tmpdir(), 'clat-bench-results.quick.json')
  : join(HERE, 'results.json');
writeFileSync(resultsFile, `${JSON.stringify(results, null, 2)}\n`);
formatWithBiome(resultsFile);
if (!QUICK) updateReadme(machine);
console.log(`\n${table()}\n\nwrote ${resultsFile}`);

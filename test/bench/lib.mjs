/** Shared helpers of the benchmarks: timing, statistics, the CLAT stack and bare clients. */
import { spawn } from 'node:child_process';
import { setMaxListeners } from 'node:events';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { createInterface } from 'node:readline';
import { PassThrough } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { mountMcpServer } from '@clat/adapter-mcp';
import { StdioTransportFactory } from '@clat/adapter-mcp-stdio';
import {
  createGlobalScope,
  PromptRegistry,
  RunEventStream,
  ToolPipeline,
  ToolRegistry,
} from '@clat/kernel';

export const HERE = dirname(fileURLToPath(import.meta.url));
export const BENCH_SERVER = join(HERE, 'fixtures', 'bench-server.mjs');
export const RAW_PIPE = join(HERE, 'fixtures', 'raw-pipe.mjs');
export const NODE = process.execPath;

export const now = () => performance.now();

export function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

export function percentile(values, p) {
  const sorted = [...values].sort((a, b) => a - b);
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[index];
}

export function mean(values) {
  return values.reduce((a, b) => a + b, 0) / values.length;
}

/** Visits `items` once per round, reversing the order every other round (ABBA…). */
export function interleaved(round, items) {
  return round % 2 === 0 ? items : [...items].reverse();
}

/** Runs `work` but gives up after `ms`, so one stuck peer cannot hang the whole bench. */
export async function bounded(work, limitMs, what) {
  let timer;
  try {
    return await Promise.race([
      work(),
      new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error(`${what} took over ${limitMs} ms`)), limitMs);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/** One round of `n` sequential echo calls on `client`: its p50 and p99 in ms. */
export async function sequentialRound(client, n) {
  const times = new Array(n);
  const args = { text: 'ping' };
  for (let i = 0; i < n; i++) {
    const t0 = now();
    await client.call('echo', args);
    times[i] = now() - t0;
  }
  return { p50: percentile(times, 50), p99: percentile(times, 99) };
}

/** A private CLAT home so stdio servers never touch the user's. */
export function tempHome() {
  const dir = mkdtempSync(join(tmpdir(), 'clat-bench-home-'));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/**
 * The real CLAT stack around one stdio server: registry, pipeline with a run-event listener,
 * MCP client core, stdio transport. `call` goes through lookup, permission, transport and events.
 */
export async function mountClat(name, clatHome, server = BENCH_SERVER) {
  const registry = new ToolRegistry();
  const events = new RunEventStream();
  let eventCount = 0;
  events.on(() => {
    eventCount++;
  });
  const pipeline = new ToolPipeline({ registry, events });
  const scope = createGlobalScope(`bench-${name}`).child('project');
  const factory = new StdioTransportFactory({
    name,
    command: NODE,
    args: [server],
    defaultCwd: clatHome,
  });
  const mounted = await mountMcpServer({
    name,
    factory,
    registry,
    prompts: new PromptRegistry(),
    scope,
    projectRoot: clatHome,
  });
  if (mounted.status().state !== 'connected') {
    throw new Error(`bench server did not connect: ${mounted.status().failure}`);
  }
  const controller = new AbortController();
  // 1,000 concurrent calls each listen on the one run signal; that is expected here.
  setMaxListeners(0, controller.signal);
  const run = { runId: 'bench', mode: 'full-access', signal: controller.signal };
  // Registry names built once, as a model's tool call would name them: not a string per call.
  const names = new Map(registry.list().map((tool) => [tool.sourceName ?? tool.name, tool.name]));
  return {
    call: (tool, args) => pipeline.call(names.get(tool) ?? tool, args, run),
    events: () => eventCount,
    close: () => scope.parent.close(),
  };
}

/**
 * A hand-written JSON-RPC client over the child's pipes: the floor any client can reach. With
 * `ownSession`, the server is spawned as CLAT spawns its servers (`detached`: its own session and
 * process group, and on Linux its own scheduler autogroup).
 */
export async function bareClient(server = BENCH_SERVER, env = {}, { ownSession = false } = {}) {
  const child = spawn(NODE, [server], {
    stdio: ['pipe', 'pipe', 'ignore'],
    env: { ...process.env, ...env },
    detached: ownSession,
  });
  const pending = new Map();
  let nextId = 1;
  createInterface({ input: child.stdout, crlfDelay: Number.POSITIVE_INFINITY }).on(
    'line',
    (line) => {
      const message = JSON.parse(line);
      const resolve = pending.get(message.id);
      if (resolve !== undefined) {
        pending.delete(message.id);
        resolve(message);
      }
    },
  );
  const request = (method, params) =>
    new Promise((resolve) => {
      const id = nextId++;
      pending.set(id, resolve);
      child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`);
    });
  await request('initialize', {
    protocolVersion: '2025-11-25',
    capabilities: {},
    clientInfo: { name: 'bare', version: '0' },
  });
  child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`);
  return {
    request,
    call: (tool, args) => request('tools/call', { name: tool, arguments: args }),
    close: () =>
      new Promise((resolve) => {
        child.once('exit', resolve);
        child.stdin.end();
      }),
  };
}

/** A child that answers each stdin line with one line of `bytes` bytes: raw pipe transfer. */
export function rawPipe(bytes) {
  const child = spawn(NODE, [RAW_PIPE], {
    stdio: ['pipe', 'pipe', 'ignore'],
    env: { ...process.env, BYTES: String(bytes) },
  });
  let waiter;
  createInterface({ input: child.stdout, crlfDelay: Number.POSITIVE_INFINITY }).on(
    'line',
    (line) => {
      waiter?.(line.length);
    },
  );
  return {
    roundTrip: () =>
      new Promise((resolve) => {
        waiter = resolve;
        child.stdin.write('\n');
      }),
    close: () =>
      new Promise((resolve) => {
        child.once('exit', resolve);
        child.stdin.end();
      }),
  };
}

/** A CLAT home whose mcp.json lists `servers` (`[name, script]`) and a trusted project dir. */
export function clatHomeWith(servers) {
  const root = mkdtempSync(join(tmpdir(), 'clat-bench-cli-'));
  const home = join(root, 'home');
  const project = join(root, 'project');
  mkdirSync(home, { recursive: true, mode: 0o700 });
  mkdirSync(project, { recursive: true });
  const entries = Object.fromEntries(
    servers.map(([name, script]) => [name, { command: NODE, args: [script] }]),
  );
  writeFileSync(join(home, 'mcp.json'), `${JSON.stringify(entries, null, 2)}\n`, { mode: 0o600 });
  return {
    home,
    project,
    env: { PATH: process.env.PATH ?? '', CLAT_HOME: home },
    forgetEras: () => rmSync(join(home, 'mcp-eras.json'), { force: true }),
    cleanup: () => rmSync(root, { recursive: true, force: true }),
  };
}

/**
 * What `clat tools` does in process, through the CLI's own composition: read mcp.json (and the
 * era store, `mcp-eras.json`), connect every server, list its tools, settle the surface.
 * Returns the MCP tool count and the close of the project.
 */
export async function clatConnectList(sandbox) {
  const { openProject } = await import('@clat/cli');
  const sink = new PassThrough();
  sink.resume();
  const project = await openProject(
    {
      stdin: new PassThrough(),
      stdout: sink,
      stderr: sink,
      env: sandbox.env,
      cwd: sandbox.project,
    },
    { trust: true },
  );
  project.session.start();
  const close = () => project.session.close();
  try {
    await project.session.mount.freezeForFirstRun();
    const summary = project.session.mount.summary();
    if (summary.failed > 0) throw new Error(`a bench server failed: ${JSON.stringify(summary)}`);
    const tools = project.session.registry.list().filter((tool) => tool.source.kind === 'mcp');
    return { tools: tools.length, close };
  } catch (error) {
    await close();
    throw error;
  }
}

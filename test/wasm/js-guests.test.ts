import { createHash } from 'node:crypto';
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { type AddressInfo, createServer } from 'node:net';
import { join } from 'node:path';
import { type MountedWasmPlugin, mountWasmPlugin, WasmErrorCode } from '@clat/adapter-wasm';
import { isKernelError, Redactor } from '@clat/kernel';
import { ScriptedApprover } from '@clat/kernel/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorld, GUESTS, README, removeSharedCache } from './harness.js';

afterAll(removeSharedCache);

const MiB = 1024 * 1024;
const SECRET = 'tok-4f9a1c2e8b7d';
const ownerRedactor = new Redactor();
ownerRedactor.add(SECRET);

describe('a TypeScript guest built with @clat/wasm-guest-sdk (manifest-backed, via plugins.json)', () => {
  let world: ReturnType<typeof createWorld>;
  let mounted: Awaited<ReturnType<ReturnType<typeof createWorld>['mountPluginsJson']>>;

  beforeAll(async () => {
    world = createWorld();
    writeFileSync(
      join(world.clatHome, 'plugins.json'),
      JSON.stringify({
        'wasm-summarize': { manifest: GUESTS.summarizeManifest, config: { style: 'short' } },
        'net-probe': { path: GUESTS.faultsHttp },
        broken: { path: 'missing.wasm', typo: true },
      }),
    );
    mounted = await world.mountPluginsJson();
  });

  afterAll(async () => {
    await world?.dispose();
  });

  it('mounts the good entry, refuses the network guest, and reports the bad entry', () => {
    expect(mounted.status('wasm-summarize')).toMatchObject({
      origin: 'plugins.json',
      transport: 'wasm',
      protocolVersion: 'clat-plugin-manifest/1',
      state: 'connected',
      tools: 3,
    });
    const net = mounted.status('net-probe');
    expect(net).toMatchObject({ transport: 'wasm', state: 'failed', tools: 0 });
    expect(net?.failure).toContain('wasi:http/outgoing-handler');
    expect(net?.failure).toContain(`[${WasmErrorCode.WASM_IMPORT_NOT_ALLOWED}]`);
    expect(mounted.issues.map((issue) => issue.path)).toEqual(['broken']);
    expect(mounted.issues[0]?.message).toContain('unknown field(s) "typo"');
    expect(world.registry.list().map((tool) => tool.name)).toEqual(
      expect.arrayContaining([
        'wasm_wasm_summarize_summarize_file',
        'wasm_wasm_summarize_project_info',
        'wasm_wasm_summarize_word_count',
      ]),
    );
  });

  it('calls a host tool and the session model (sampling, user-approved) from inside the guest', async () => {
    const approver = new ScriptedApprover({ outcome: 'allow' });
    const run = world.run({ approver });
    const recorded = world.events.record();
    const result = await world.pipeline.call(
      'wasm_wasm_summarize_summarize_file',
      { path: 'README.md', maxTokens: 64 },
      run,
    );
    recorded.stop();
    expect(result.isError).toBeUndefined();
    expect(result.structured).toEqual({
      path: 'README.md',
      summary: `echo: ${`Summarize README.md:\n\n${README}`.slice(0, 40)}`,
      model: 'echo-1',
    });
    expect(world.model.requests.at(-1)).toMatchObject({
      system: 'You summarize source files in two sentences.',
      maxTokens: 64,
    });
    expect(approver.requests.map((request) => request.tool)).toEqual([
      'wasm:wasm-summarize:sampling',
    ]);
    const types = recorded.events.map((event) => event.type);
    expect(types).toEqual(expect.arrayContaining(['sampling.requested', 'sampling.completed']));
    // The host tool ran through the pipeline (permission check and run events included).
    expect(
      recorded.events.some((event) => event.type === 'tool.finished' && event.tool === 'read_file'),
    ).toBe(true);
  });

  it('a denied sampling request reaches the guest as an error, and the tool reports it', async () => {
    const run = world.run({
      approver: new ScriptedApprover({ outcome: 'deny', reason: 'not now' }),
    });
    const result = await world.pipeline.call(
      'wasm_wasm_summarize_summarize_file',
      { path: 'README.md' },
      run,
    );
    expect(result).toEqual({
      content: 'sampling was not approved: not now',
      isError: true,
    });
  });

  it('checks arguments against the tool input schema before the guest runs', async () => {
    const run = world.run();
    const call = (args: Record<string, unknown>) =>
      world.pipeline.call('wasm_wasm_summarize_word_count', args, run);
    await expect(call({})).rejects.toMatchObject({
      code: 'TOOL_INVALID_ARGUMENTS',
      message: 'invalid arguments for wasm_wasm_summarize_word_count: field "text" is required',
    });
    await expect(call({ text: 42 })).rejects.toMatchObject({
      message: 'invalid arguments for wasm_wasm_summarize_word_count: field "text" must be string',
    });
    // The guest never saw the bad calls: it has not restarted and still answers.
    expect(await call({ text: 'one two three' })).toMatchObject({ structured: { words: 3 } });
  });

  it('reads the host context', async () => {
    const run = world.run();
    const result = await world.pipeline.call('wasm_wasm_summarize_project_info', {}, run);
    expect(result.structured).toMatchObject({
      root: world.projectRoot,
      mode: 'project-write',
      model: 'echo-1',
      hostTools: expect.arrayContaining(['read_file']),
    });
  });
});

describe('the fault guest under the sandbox', () => {
  let world: ReturnType<typeof createWorld>;
  let faults: MountedWasmPlugin;

  beforeAll(async () => {
    world = createWorld();
    faults = await mountWasmPlugin({
      name: 'faults',
      componentPath: GUESTS.faults,
      config: { answer: 42, token: SECRET },
      // The status owner's redactor (a host's knows the sensitive config values).
      redactor: ownerRedactor,
      registry: world.registry,
      scope: world.scope.pluginScope('faults'),
      hostServices: world.bridge,
      projectRoot: world.projectRoot,
      clatHome: world.clatHome,
      cacheDir: world.cacheDir,
      memoryLimitBytes: 128 * MiB,
      callTimeoutMs: 3_000,
    });
  });

  afterAll(async () => {
    await world?.dispose();
  });

  const call = (tool: string, args: Record<string, unknown> = {}, signal?: AbortSignal) =>
    world.pipeline.call(
      `wasm_faults_${tool}`,
      args,
      world.run(signal === undefined ? {} : { signal }),
    );

  it('mounts as a path-only plugin', () => {
    expect(faults.status()).toMatchObject({
      state: 'connected',
      protocolVersion: 'clat-wit/0.1.0',
      tools: 12,
    });
  });

  it('sees no process, require or environment; clocks and randomness work', async () => {
    const before = Date.now();
    const result = await call('probe');
    const report = result.structured as Record<string, unknown>;
    expect(report).toMatchObject({ process: 'undefined', require: 'undefined', Deno: 'undefined' });
    expect(report.now as number).toBeGreaterThanOrEqual(before - 1000);
    const [a, b] = report.random as number[];
    expect(a).not.toBe(b);
  });

  it('fetch() cannot reach the network: the call fails and no connection arrives', async () => {
    const connections: unknown[] = [];
    const server = createServer((socket) => {
      connections.push(socket.remoteAddress);
      socket.destroy();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as AddressInfo;
      const result = await call('fetch', { url: `http://127.0.0.1:${port}/` });
      expect(result.isError).toBe(true);
      // Let a connection attempt, had there been one, arrive.
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(connections).toEqual([]);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('captures guest stdout and stderr instead of writing to the host', async () => {
    const result = await call('log', { text: 'hello' });
    expect(result.content).toBe('logged');
    expect(faults.status().stderrTail).toEqual(
      expect.arrayContaining(['stdout: hello', 'stderr: hello']),
    );
    // A secret the status owner's redactor knows never reaches the tail, even cut.
    await call('log', { text: `using ${SECRET}` });
    const tail = faults.status().stderrTail.join('\n');
    expect(tail).toContain('stdout: using [REDACTED]');
    expect(tail).not.toContain(SECRET);
  });

  it('answers every host import through the bridge, with path-only plugins uncapped', async () => {
    const run = world.run({ approver: new ScriptedApprover({ outcome: 'allow' }) });
    const result = await world.pipeline.call('wasm_faults_host_all', { path: 'README.md' }, run);
    const report = result.structured as Record<string, { ok?: unknown; err?: string }>;
    expect(report.context).toEqual({ ok: world.projectRoot });
    expect(report.readFile?.ok).toMatchObject({ path: 'README.md' });
    expect(report.writeFile?.err).toContain('HOST_TOOL_NOT_ALLOWED');
    expect(report.sampling).toEqual({ ok: 'echo: ping' });
    expect(report.elicit?.err).toContain('ELICITATION_NO_FRONTEND');
    expect(report.config).toEqual({ ok: { answer: 42, token: SECRET } });
  });

  it('host imports outside a run are refused with HOST_NO_ACTIVE_RUN', async () => {
    world.endRun();
    const outcome = await faults.guest?.call('host_all', '{}', new AbortController().signal);
    expect(outcome?.kind).toBe('ok');
    const report = JSON.parse(outcome?.kind === 'ok' ? outcome.value : '{}');
    expect(report.context.err).toContain('HOST_NO_ACTIVE_RUN');
  });

  it('an infinite loop hits the time budget; the next call gets a fresh instance', async () => {
    await call('echo');
    const restarts = faults.restarts;
    const started = performance.now();
    const result = await call('spin');
    expect(result.isError).toBe(true);
    expect(result.content).toContain('ran past its 3000 ms time budget');
    expect(performance.now() - started).toBeLessThan(20_000);
    const after = await call('echo', { n: 1 });
    expect(after.structured).toEqual({ args: { n: 1 }, served: 1 });
    expect(faults.restarts).toBe(restarts + 1);
  });

  it('a memory bomb is stopped by the cap, becomes a tool error, and the guest restarts', async () => {
    const restarts = faults.restarts;
    const result = await call('bomb', { chunkMiB: 4 });
    expect(result.isError).toBe(true);
    expect(result.content).toContain(`ran out of memory (cap ${128 * MiB} bytes)`);
    const after = await call('echo', { n: 2 });
    expect(after.structured).toEqual({ args: { n: 2 }, served: 1 });
    expect(faults.restarts).toBe(restarts + 1);
  });

  it('a trap is a tool error, never a host crash, and the guest restarts', async () => {
    const restarts = faults.restarts;
    const result = await call('trap');
    expect(result.isError).toBe(true);
    expect(result.content).toContain('wasm plugin faults trapped');
    const after = await call('echo', { n: 3 });
    expect(after.structured).toEqual({ args: { n: 3 }, served: 1 });
    expect(faults.restarts).toBe(restarts + 1);
  });

  it('a stack overflow the engine catches stays a plain tool error; the instance lives on', async () => {
    const restarts = faults.restarts;
    const result = await call('overflow');
    expect(result.isError).toBe(true);
    expect(result.content).toMatch(/recursion/i);
    const after = await call('echo', { n: 4 });
    expect(after.structured).toEqual({ args: { n: 4 }, served: 2 });
    expect(faults.restarts).toBe(restarts);
  });

  it('cancelling the run terminates a spinning guest promptly', async () => {
    const controller = new AbortController();
    const pending = call('spin', {}, controller.signal);
    await new Promise((resolve) => setTimeout(resolve, 300));
    const cancelledAt = performance.now();
    controller.abort();
    const error = await pending.then(
      () => undefined,
      (failure: unknown) => failure,
    );
    expect(isKernelError(error) && error.code).toBe('CANCELLED');
    // The worker is gone once the guest host settles the call (terminate() awaited).
    await faults.guest?.call('echo', '{}', new AbortController().signal);
    expect(performance.now() - cancelledAt).toBeLessThan(10_000);
  });
});

describe('capability ceiling of a manifest-backed package', () => {
  let world: ReturnType<typeof createWorld>;

  beforeAll(() => {
    world = createWorld();
  });

  afterAll(async () => {
    await world?.dispose();
  });

  it('refuses every undeclared host import at the boundary', async () => {
    const pkg = join(world.root, 'pkg');
    mkdirSync(join(pkg, 'dist'), { recursive: true });
    copyFileSync(GUESTS.faults, join(pkg, 'dist', 'faults.wasm'));
    writeFileSync(
      join(pkg, 'clat-plugin.json'),
      JSON.stringify({
        manifestVersion: 1,
        id: 'ceiling',
        name: 'Ceiling',
        version: '1',
        runtime: {
          kind: 'wasm-component',
          entry: 'dist/faults.wasm',
          sha256: createHash('sha256').update(readFileSync(GUESTS.faults)).digest('hex'),
        },
        capabilities: { tools: true },
      }),
    );
    writeFileSync(
      join(world.clatHome, 'plugins.json'),
      JSON.stringify({ ceiling: { manifest: pkg } }),
    );
    expect((await world.mountPluginsJson()).status('ceiling')?.state).toBe('connected');
    const approver = new ScriptedApprover({ outcome: 'allow' });
    const result = await world.pipeline.call('wasm_ceiling_host_all', {}, world.run({ approver }));
    const report = result.structured as Record<string, { err?: string }>;
    for (const [key, capability, declaration] of [
      ['context', 'hostContext', '"hostContext": true'],
      ['readFile', 'hostTools.read_file', '"hostTools": ["read_file"]'],
      ['sampling', 'sampling', '"sampling": true'],
      ['elicit', 'elicitation', '"elicitation": true'],
    ] as const) {
      expect(report[key]?.err).toBe(
        `WASM_CAPABILITY_NOT_DECLARED: plugin "ceiling" does not declare capability \`${capability}\`; its clat-plugin.json needs "capabilities": {${declaration}} (an installed plugin then takes it with clat plugin update <its package> --accept-capabilities)`,
      );
    }
    expect(approver.requests).toEqual([]);
  });
});

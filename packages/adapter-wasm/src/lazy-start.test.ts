import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cacheKeyPath, loadCacheKey } from './cache-key.js';
import { wasmCacheDir } from './component-cache.js';
import { sha256Hex } from './digest.js';
import { type MountedWasmPlugin, type MountWasmPluginOptions, mountWasmPlugin } from './mount.js';
import { buildFixtureComponent } from './test-support/build-wat.js';
import { createHarness } from './test-support/harness.js';
import { readToolList, recordToolList, toolListKey } from './tool-list-memo.js';
import { PROJECT_PREOPEN } from './write-access.js';

const MiB = 1024 * 1024;

describe('a WASM plugin started at its first call (lazyStart)', () => {
  let h: ReturnType<typeof createHarness>;
  let componentPath: string;
  let digest: string;
  let cacheDir: string;
  const mounted: MountedWasmPlugin[] = [];

  beforeEach(async () => {
    h = createHarness();
    const { mkdirSync } = await import('node:fs');
    mkdirSync(h.projectRoot, { recursive: true });
    const component = await buildFixtureComponent();
    digest = sha256Hex(component);
    componentPath = join(h.root, 'wat-plugin.wasm');
    writeFileSync(componentPath, component);
    cacheDir = wasmCacheDir(h.clatHome);
  });

  afterEach(async () => {
    for (const plugin of mounted.splice(0)) await plugin.close();
    await h?.dispose();
  });

  /** Mounts the fixture as `wat`, closing the previous mount first (its tools leave the registry). */
  const mount = async (extra: Partial<MountWasmPluginOptions> = {}) => {
    for (const plugin of mounted.splice(0)) await plugin.close();
    const plugin = await mountWasmPlugin({
      ...h.mountOptions('wat'),
      componentPath,
      config: { greeting: 'hi' },
      memoryLimitBytes: 32 * MiB,
      callTimeoutMs: 3_000,
      lazyStart: true,
      ...extra,
    });
    mounted.push(plugin);
    return plugin;
  };

  const run = (signal = new AbortController().signal) => ({
    runId: 'run-1',
    mode: 'project-write' as const,
    signal,
  });
  const memoFile = () => join(cacheDir, digest, 'tools.json');
  const listKeyOf = async (config: unknown) =>
    toolListKey(await macKey(), {
      config,
      capabilities: undefined,
      preopens: [{ guestPath: PROJECT_PREOPEN, hostPath: h.projectRoot, writable: false }],
      dirs: [],
      memoryLimitBytes: 32 * MiB,
    });
  const macKey = () => loadCacheKey(cacheKeyPath(cacheDir));

  it('the first mount starts the guest and remembers its list; the next registers it without a start', async () => {
    const first = await mount();
    expect(first.status()).toMatchObject({ state: 'connected', tools: 6 });
    expect(first.guest?.running).toBe(true);
    expect(statSync(memoFile()).mode & 0o777).toBe(0o600);
    const names = h.registry
      .list()
      .map((tool) => tool.name)
      .sort();

    const second = await mount();
    expect(second.status()).toEqual({
      protocolVersion: 'clat-wit/0.1.0',
      state: 'connected',
      tools: 6,
      warnings: [],
      stderrTail: [],
    });
    expect(second.sha256).toBe(digest);
    // Nothing was prepared or started: no guest host is exposed and no worker runs.
    expect(second.guest).toBeUndefined();
    expect(
      h.registry
        .list()
        .map((tool) => tool.name)
        .sort(),
    ).toEqual(names);

    const result = await h.pipeline.call('wasm_wat_echo', { text: 'lazy', n: 1 }, run());
    expect(result.structured).toEqual({ text: 'lazy', n: 1 });
    expect(second.guest?.running).toBe(true);
    // The config reached the lazily started guest as it reaches an eager one.
    const config = await h.pipeline.call('wasm_wat_config', {}, run());
    expect(config.structured).toEqual({ greeting: 'hi' });
  });

  it('a mount from the list skips the schemas its registration found unusable, without compiling any', async () => {
    await mount();
    const key = await listKeyOf({ greeting: 'hi' });
    const real = await readToolList(cacheDir, digest, await macKey(), key);
    expect(real?.unusableSchemas).toEqual(new Map());
    // A verdict for the schema all six tools share: the mount takes it, it does not judge again.
    await recordToolList(cacheDir, digest, await macKey(), key, {
      tools: real?.tools ?? [],
      unusableSchemas: new Map([['{"type":"object"}', 'judged unusable before']]),
    });
    const judged = await mount();
    expect(judged.guest).toBeUndefined();
    expect(judged.status()).toMatchObject({ state: 'connected', tools: 0 });
    expect(judged.status().warnings).toContain(
      'tool "echo" skipped: its input-schema is not a usable JSON Schema (judged unusable before)',
    );
    expect(judged.status().warnings).toHaveLength(6);
  });

  it("compiles a schema at its tool's first call: one that does not compile fails the call, and the list is forgotten", async () => {
    await mount();
    const key = await listKeyOf({ greeting: 'hi' });
    const real = await readToolList(cacheDir, digest, await macKey(), key);
    // An authentic list whose echo schema compiled when it was judged, but does not here.
    const dangling = '{"$ref":"#/definitions/missing"}';
    await recordToolList(cacheDir, digest, await macKey(), key, {
      tools: (real?.tools ?? []).map((tool) =>
        tool.name === 'echo' ? { ...tool, inputSchema: dangling } : tool,
      ),
      unusableSchemas: new Map(),
    });
    const lazy = await mount();
    // Registered without a compile: a compile at mount would have skipped echo.
    expect(lazy.status()).toMatchObject({ state: 'connected', tools: 6, warnings: [] });
    const result = await h.pipeline.call('wasm_wat_echo', { text: 'x', n: 1 }, run());
    expect(result).toMatchObject({ isError: true });
    expect(result.content).toMatch(
      /^tool wasm_wat_echo cannot be called: its input-schema is not a usable JSON Schema \(can't resolve reference #\/definitions\/missing/,
    );
    // Refused before the guest: nothing was started for it.
    expect(lazy.guest).toBeUndefined();
    // Forgotten before the call reported.
    expect(await readToolList(cacheDir, digest, await macKey(), key)).toBeUndefined();
    // The next mount lists again (the guest starts at mount) and registers the guest's own list.
    const next = await mount();
    expect(next.guest?.running).toBe(true);
    expect(next.status()).toMatchObject({ state: 'connected', tools: 6 });
  });

  it('keeps the config out of tools.json: only the HMAC of the inputs is stored', async () => {
    const secret = 'sk-config-secret-4711';
    await mount({ config: { greeting: secret } });
    const lazy = await mount({ config: { greeting: secret } });
    expect(lazy.guest).toBeUndefined();
    expect(readFileSync(memoFile(), 'utf8')).not.toContain(secret);
  });

  it('a different config, or a list whose MAC does not verify, is a miss: the guest starts at mount', async () => {
    await mount();
    const other = await mount({ config: { greeting: 'hello' } });
    expect(other.guest?.running).toBe(true);
    expect(
      (await readToolList(cacheDir, digest, await macKey(), await listKeyOf({ greeting: 'hello' })))
        ?.tools,
    ).toHaveLength(6);

    const stored = JSON.parse(readFileSync(memoFile(), 'utf8'));
    for (const list of stored.lists)
      list.mac = list.mac.replace(/^./, (c: string) => (c === '0' ? '1' : '0'));
    writeFileSync(memoFile(), JSON.stringify(stored));
    const forged = await mount();
    expect(forged.guest?.running).toBe(true);
    expect(forged.status()).toMatchObject({ state: 'connected', tools: 6 });
  });

  it('a guest that lists other tools than the remembered ones fails its calls and the plugin, and its list is remembered', async () => {
    await mount();
    const key = await listKeyOf({ greeting: 'hi' });
    const real = await readToolList(cacheDir, digest, await macKey(), key);
    // An authentic list of only the first tool, as an older build of the component could have.
    await recordToolList(cacheDir, digest, await macKey(), key, {
      tools: real?.tools.slice(0, 1) ?? [],
      unusableSchemas: new Map(),
    });
    const stale = await mount();
    expect(stale.status()).toMatchObject({ state: 'connected', tools: 1 });
    const [only] = h.registry.list().filter((tool) => tool.name.startsWith('wasm_wat_'));
    const result = await h.pipeline.call(only?.name ?? '', {}, run());
    expect(result).toMatchObject({ isError: true });
    expect(result.content).toMatch(
      /now lists other tools than the ones registered from its cache; start a new session/,
    );
    expect(stale.status()).toMatchObject({
      state: 'failed',
      failure: expect.stringMatching(/\[WASM_TOOLS_CHANGED\]$/),
    });
    expect(await readToolList(cacheDir, digest, await macKey(), key)).toEqual(real);
    expect((await mount()).status()).toMatchObject({ state: 'connected', tools: 6 });
  });

  it('a component replaced after the mount is refused at the first call, and its list forgotten', async () => {
    await mount();
    const lazy = await mount();
    expect(lazy.guest).toBeUndefined();
    // Other bytes under the same path: the tools were listed for the old digest.
    writeFileSync(componentPath, Buffer.concat([readFileSync(componentPath), Buffer.from([0])]));
    const result = await h.pipeline.call('wasm_wat_echo', { text: 'x', n: 1 }, run());
    expect(result).toMatchObject({ isError: true });
    expect(lazy.status()).toMatchObject({
      state: 'failed',
      failure: expect.stringMatching(/\[WASM_DIGEST_MISMATCH\]$/),
    });
    expect(
      await readToolList(cacheDir, digest, await macKey(), await listKeyOf({ greeting: 'hi' })),
    ).toBeUndefined();
  });

  it('a call cancelled while the guest starts is cancelled; the next call finds it started', async () => {
    await mount();
    const lazy = await mount();
    const controller = new AbortController();
    const call = h.pipeline.call('wasm_wat_echo', { text: 'x', n: 1 }, run(controller.signal));
    controller.abort();
    await expect(call).rejects.toMatchObject({ code: 'CANCELLED' });
    const result = await h.pipeline.call('wasm_wat_echo', { text: 'y', n: 2 }, run());
    expect(result.structured).toEqual({ text: 'y', n: 2 });
    expect(lazy.status()).toMatchObject({ state: 'connected' });
  });
});

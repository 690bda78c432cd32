import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { isKernelError } from '@clat/kernel';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { sha256Hex } from './digest.js';
import { WasmErrorCode } from './errors.js';
import { type MountedWasmPlugin, mountWasmPlugin } from './mount.js';
import { buildFixtureComponent } from './test-support/build-wat.js';
import { createHarness } from './test-support/harness.js';

const MiB = 1024 * 1024;

describe('a hand-written WAT component', () => {
  let h: ReturnType<typeof createHarness>;
  let componentPath: string;
  let plugin: MountedWasmPlugin;
  let digest: string;

  beforeAll(async () => {
    h = createHarness();
    mkdirSync(h.projectRoot, { recursive: true });
    const component = await buildFixtureComponent();
    digest = sha256Hex(component);
    componentPath = join(h.root, 'wat-plugin.wasm');
    writeFileSync(componentPath, component);
    plugin = await mountWasmPlugin({
      ...h.mountOptions('wat'),
      componentPath,
      sha256: `sha256:${digest.toUpperCase()}`,
      config: { greeting: 'hi' },
      memoryLimitBytes: 32 * MiB,
      callTimeoutMs: 3_000,
    });
  });

  afterAll(async () => {
    await h?.dispose();
  });

  const run = (signal = new AbortController().signal) => ({
    runId: 'run-1',
    mode: 'project-write' as const,
    signal,
  });

  it('mounts its tools as wasm_{plugin}_{tool} with the declared effects', () => {
    expect(plugin.status()).toEqual({
      protocolVersion: 'clat-wit/0.1.0',
      state: 'connected',
      tools: 6,
      warnings: [],
      stderrTail: [],
    });
    expect(plugin.sha256).toBe(digest);
    const names = h.registry.list().map((tool) => tool.name);
    expect(names).toEqual(
      expect.arrayContaining(['wasm_wat_echo', 'wasm_wat_config', 'wasm_wat_spin']),
    );
    const config = h.registry.list().find((tool) => tool.name === 'wasm_wat_config');
    expect(config).toMatchObject({
      effect: 'read',
      source: { kind: 'wasm', id: 'wat' },
      sourceName: 'config',
      description: '[wasm:wat] Returns the plugin configuration from the host',
    });
  });

  it('passes arguments through and parses a JSON result', async () => {
    const result = await h.pipeline.call('wasm_wat_echo', { text: 'héllo', n: 3 }, run());
    expect(result.isError).toBeUndefined();
    expect(result.structured).toEqual({ text: 'héllo', n: 3 });
  });

  it('passes arguments too large for the call slot, and returns a result too large for it', async () => {
    // Both go by message instead of through the shared slot (worker/call-slot.mjs).
    const text = 'é'.repeat(200_000);
    const result = await h.pipeline.call('wasm_wat_echo', { text }, run());
    expect(result.isError).toBeUndefined();
    expect(result.structured).toEqual({ text });
    const small = await h.pipeline.call('wasm_wat_echo', { after: 'large' }, run());
    expect(small.structured).toEqual({ after: 'large' });
  });

  it('serves a long run of back-to-back calls, and a call after the worker went idle', async () => {
    const before = plugin.restarts;
    // Long enough that the worker hands its event loop a turn between calls at least once.
    const started = performance.now();
    for (let i = 0; performance.now() - started < 100 || i < 200; i++) {
      const result = await h.pipeline.call('wasm_wat_echo', { i }, run());
      expect(result.structured).toEqual({ i });
    }
    // Idle past the worker's wait: it parks in its event loop, and the next call wakes it.
    await new Promise((resolve) => setTimeout(resolve, 150));
    const again = await h.pipeline.call('wasm_wat_echo', { after: 'idle' }, run());
    expect(again.structured).toEqual({ after: 'idle' });
    expect(plugin.restarts).toBe(before);
  });

  it('serves each call once when the worker is woken without a new call', async () => {
    // A notify can reach the worker after it already took the call it was for: the host may be
    // preempted between publishing a call number and notifying. Here every published call is
    // preceded by such a stray wake-up while the worker sleeps in Atomics.wait, with the next
    // call's request already in the slot. A worker that served on any wake-up would serve the
    // previous call again, over the request, and then read its own result as the next name.
    const store = Atomics.store;
    const notify = Atomics.notify;
    const slotHeader = (cell: unknown): cell is Int32Array =>
      cell instanceof Int32Array && cell.length === 8 && cell.buffer instanceof SharedArrayBuffer;
    const spin = (ms: number) => {
      const end = performance.now() + ms;
      while (performance.now() < end) {}
    };
    const stores = vi.spyOn(Atomics, 'store').mockImplementation(((
      cell: Int32Array,
      index: number,
      value: number,
    ) => {
      if (slotHeader(cell) && index === 0) {
        notify(cell, 0);
        spin(3);
      }
      return store(cell, index, value);
    }) as typeof Atomics.store);
    try {
      for (let i = 0; i < 20; i++) {
        // Long enough for the worker to stop spinning and sleep in Atomics.wait.
        await new Promise((resolve) => setTimeout(resolve, 2));
        const result = await h.pipeline.call('wasm_wat_echo', { stray: i }, run());
        expect(result.content).toBe(JSON.stringify({ stray: i }));
      }
      expect(stores).toHaveBeenCalled();
    } finally {
      stores.mockRestore();
    }
  });

  it('answers a host import (config.get) from a non-JS guest', async () => {
    const result = await h.pipeline.call('wasm_wat_config', {}, run());
    expect(result.structured).toEqual({ greeting: 'hi' });
  });

  it('turns err(..) into a tool error and keeps the instance', async () => {
    const before = plugin.restarts;
    const result = await h.pipeline.call('wasm_wat_fail', {}, run());
    expect(result).toEqual({ content: 'failed on purpose', isError: true });
    expect(plugin.restarts).toBe(before);
  });

  it('stops an infinite loop at the time budget, then restarts on the next call', async () => {
    const before = plugin.restarts;
    const started = performance.now();
    const result = await h.pipeline.call('wasm_wat_spin', {}, run());
    expect(result.isError).toBe(true);
    expect(result.content).toContain('ran past its 3000 ms time budget');
    // Generous upper bound: hang detection only.
    expect(performance.now() - started).toBeLessThan(15_000);
    const again = await h.pipeline.call('wasm_wat_echo', { after: 'spin' }, run());
    expect(again.structured).toEqual({ after: 'spin' });
    expect(plugin.restarts).toBe(before + 1);
  });

  it('caps memory: growing past the cap fails inside the guest, and the instance is recycled', async () => {
    const before = plugin.restarts;
    const result = await h.pipeline.call('wasm_wat_grow', {}, run());
    expect(result.isError).toBe(true);
    expect(result.content).toContain(`ran out of memory (cap ${32 * MiB} bytes)`);
    const again = await h.pipeline.call('wasm_wat_echo', { after: 'grow' }, run());
    expect(again.structured).toEqual({ after: 'grow' });
    expect(plugin.restarts).toBe(before + 1);
  });

  it('reports a trap as a tool error, never a host crash, and restarts', async () => {
    const before = plugin.restarts;
    const result = await h.pipeline.call('wasm_wat_trap', {}, run());
    expect(result.isError).toBe(true);
    expect(result.content).toContain('trapped: RuntimeError');
    const again = await h.pipeline.call('wasm_wat_echo', { after: 'trap' }, run());
    expect(again.structured).toEqual({ after: 'trap' });
    expect(plugin.restarts).toBe(before + 1);
  });

  it('cancellation terminates a spinning guest promptly', async () => {
    const controller = new AbortController();
    const call = h.pipeline.call('wasm_wat_spin', {}, run(controller.signal));
    // Let the call reach the guest, then cancel the run.
    await new Promise((resolve) => setTimeout(resolve, 200));
    const cancelledAt = performance.now();
    controller.abort();
    const error = await call.then(
      () => undefined,
      (failure: unknown) => failure,
    );
    expect(isKernelError(error) && error.code).toBe('CANCELLED');
    // The guest host itself resolves only after the worker is gone.
    await plugin.guest?.call('echo', '{}', new AbortController().signal);
    expect(performance.now() - cancelledAt).toBeLessThan(5_000);
  });

  it('a second mount of the same digest is served from the cache', async () => {
    const { prepareComponent, wasmCacheDir } = await import('./component-cache.js');
    const prepared = await prepareComponent({
      componentPath,
      cacheDir: wasmCacheDir(h.clatHome),
    });
    expect(prepared).toMatchObject({ sha256: digest, transpiled: false });
    expect(prepared.imports).toEqual(['clat:plugin/config@0.1.0', 'clat:plugin/types@0.1.0']);
  });

  it('a digest pin that does not match fails the plugin, isolated', async () => {
    const other = await mountWasmPlugin({
      ...h.mountOptions('pinned'),
      componentPath,
      sha256: '0'.repeat(64),
    });
    expect(other.status()).toMatchObject({
      state: 'failed',
      tools: 0,
      failure: expect.stringContaining(`[${WasmErrorCode.WASM_DIGEST_MISMATCH}]`),
    });
    expect(h.registry.list().some((tool) => tool.name.startsWith('wasm_pinned_'))).toBe(false);
  });

  it('a manifest that does not declare tools refuses a component exporting them', async () => {
    const undeclared = await mountWasmPlugin({
      ...h.mountOptions('notools'),
      componentPath,
      capabilities: {
        tools: false,
        hostContext: false,
        sampling: false,
        elicitation: false,
        hostTools: [],
      },
    });
    expect(undeclared.status()).toMatchObject({
      state: 'failed',
      tools: 0,
      failure: expect.stringMatching(
        /does not declare capability `tools` \[WASM_CAPABILITY_NOT_DECLARED\]$/,
      ),
    });
    expect(h.registry.list().some((tool) => tool.name.startsWith('wasm_notools_'))).toBe(false);
  });

  it('never preopens a directory that overlaps the CLAT home, but still mounts the plugin', async () => {
    const overlapping = await mountWasmPlugin({
      name: 'home',
      componentPath,
      registry: h.registry,
      scope: h.scope.pluginScope('home'),
      hostServices: h.bridge,
      // The project contains the CLAT home (think: clat started in ~), and a dir inside it.
      projectRoot: h.root,
      dirs: [join(h.clatHome, 'cache')],
      clatHome: h.clatHome,
    });
    expect(overlapping.status().state).toBe('connected');
    expect(overlapping.guest?.preopens).toEqual([]);
    expect(overlapping.status().warnings).toEqual([
      expect.stringContaining(
        `WASM_PREOPEN_REFUSED: the project directory ${h.root} is not preopened`,
      ),
      expect.stringContaining(
        `WASM_PREOPEN_REFUSED: directory ${join(h.clatHome, 'cache')} is not preopened`,
      ),
    ]);
    await overlapping.close();
  });

  it('closing the plugin revokes its tools', async () => {
    await plugin.close();
    expect(plugin.status().state).toBe('closed');
    expect(h.registry.list().some((tool) => tool.name.startsWith('wasm_wat_'))).toBe(false);
  });
});

import { existsSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { LIMITS } from '@clat/kernel';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { prepareComponent } from './component-cache.js';
import { startCompile } from './component-compile.js';
import { isWasmError, WasmErrorCode } from './errors.js';
import { mountWasmPlugin } from './mount.js';
import { createComponentHarness, type createHarness } from './test-support/harness.js';

/**
 * A component loaded again in the same process takes the core modules the process compiled for
 * the same authenticated cache entry and memory limit, without reading their files again. The
 * tests make the files on disk unusable after the first load: a load that read them would be
 * rebuilt (or fail), one that reuses the compiled modules is not.
 */
describe('compiled core modules reused within a process', () => {
  let h: ReturnType<typeof createHarness>;
  let componentPath: string;
  let cacheDir: string;
  const limit = LIMITS.wasmMemoryBytes;

  beforeEach(async () => {
    ({ h, componentPath, cacheDir } = await createComponentHarness());
  });

  afterEach(async () => {
    await h.dispose();
  });

  /** Prepares and compiles under `memoryLimitBytes`; returns the preparation and its modules. */
  const load = async (memoryLimitBytes: number) => {
    const prepared = await prepareComponent({ componentPath, cacheDir, memoryLimitBytes });
    const modules = await startCompile(prepared, memoryLimitBytes).modules;
    return { prepared, modules };
  };

  it('serves the same compiled modules without reading the core module files again', async () => {
    const first = await load(limit);
    expect(first.prepared.compiled).toBeUndefined();
    expect(Object.keys(first.prepared.coreModules)).toContain('plugin.core.wasm');
    writeFileSync(join(first.prepared.dir, 'plugin.core.wasm'), 'not the verified module');

    const second = await load(limit);
    expect(second.prepared).toMatchObject({ transpiled: false, coreModules: {} });
    expect(second.prepared.rebuilt).toBeUndefined();
    expect(second.modules).toBe(first.modules);
    // The glue is still read and verified: it is what the worker runs.
    expect(second.prepared.glueSource).toBe(first.prepared.glueSource);
  });

  it('reads and verifies the files under another memory limit, and when none was given', async () => {
    const first = await load(limit);
    rmSync(join(first.prepared.dir, 'plugin.core.wasm'));
    const other = await prepareComponent({
      componentPath,
      cacheDir,
      memoryLimitBytes: limit / 2,
    });
    expect(other).toMatchObject({ transpiled: true, rebuilt: 'plugin.core.wasm is missing' });
    expect(other.compiled).toBeUndefined();

    rmSync(join(first.prepared.dir, 'plugin.core.wasm'));
    const unlimited = await prepareComponent({ componentPath, cacheDir });
    expect(unlimited).toMatchObject({ transpiled: true, rebuilt: 'plugin.core.wasm is missing' });
    expect(first.modules).toBeDefined();
  });

  it('still verifies the glue of an entry whose core modules it holds', async () => {
    const first = await load(limit);
    writeFileSync(join(first.prepared.dir, 'plugin.js'), 'globalThis.pwned = true;\n', {
      flag: 'a',
    });
    const second = await load(limit);
    expect(second.prepared).toMatchObject({
      transpiled: true,
      rebuilt: 'plugin.js no longer matches its digest',
    });
    expect(second.prepared.glueSource).not.toContain('pwned');
  });

  it('refuses to start a preparation that holds compiled modules under another limit', async () => {
    const held = await load(limit);
    const prepared = await prepareComponent({ componentPath, cacheDir, memoryLimitBytes: limit });
    expect(prepared.compiled?.modules).toBe(held.modules);
    let code: string | undefined;
    try {
      startCompile(prepared, limit / 2);
    } catch (error) {
      code = isWasmError(error) ? error.code : String(error);
    }
    expect(code).toBe(WasmErrorCode.WASM_START_FAILED);
  });

  it('mounts a plugin again, and calls it, with its core module file gone from the cache', async () => {
    const mount = (name: string) =>
      mountWasmPlugin({ ...h.mountOptions(name), componentPath, cacheDir });
    const first = await mount('first');
    expect(first.status().state).toBe('connected');
    const entry = join(cacheDir, first.sha256 ?? '');
    rmSync(join(entry, 'plugin.core.wasm'));
    const second = await mount('second');
    expect(second.status()).toMatchObject({ state: 'connected', warnings: [] });
    const run = {
      runId: 'run-1',
      mode: 'project-write' as const,
      signal: AbortSignal.timeout(30_000),
    };
    expect((await h.pipeline.call('wasm_second_echo', { a: 1 }, run)).structured).toEqual({ a: 1 });
    // Nothing was rebuilt: the entry still lacks the file the second mount did not need.
    expect(existsSync(join(entry, 'plugin.core.wasm'))).toBe(false);
    await first.close();
  });
});

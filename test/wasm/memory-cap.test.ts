import { join } from 'node:path';
import { type MountedWasmPlugin, mountWasmPlugin, WASM_PAGE_BYTES } from '@clat/adapter-wasm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorld, removeSharedCache } from './harness.js';
import { buildComponentWat } from './wat.js';

afterAll(removeSharedCache);

const CAP_BYTES = 8 * 1024 * 1024;

/**
 * Issue 22 item 6: the memory cap holds for the whole instance. The hostile component
 * (test/fixtures/wasm/multi-memory.wat) has two core modules, each with its own memory, and grows
 * both until memory.grow fails.
 */
describe('the memory cap of a component with several memories', () => {
  let world: ReturnType<typeof createWorld>;
  let plugin: MountedWasmPlugin;

  beforeAll(async () => {
    world = createWorld();
    const component = await buildComponentWat('multi-memory', join(world.root, 'mm.wasm'));
    plugin = await mountWasmPlugin({
      name: 'mm',
      componentPath: component,
      registry: world.registry,
      scope: world.scope.pluginScope('mm'),
      hostServices: world.bridge,
      projectRoot: world.projectRoot,
      clatHome: world.clatHome,
      cacheDir: world.cacheDir,
      memoryLimitBytes: CAP_BYTES,
    });
  });

  afterAll(async () => {
    await plugin?.close();
    await world?.dispose();
  });

  it('holds the sum of all its memories within the cap', async () => {
    expect(plugin.status()).toMatchObject({ state: 'connected', tools: 1 });
    const result = await world.pipeline.call('wasm_mm_grow', {}, world.run());
    expect(result.isError).toBeUndefined();
    const pages = Number(result.content);
    // Both memories grew as far as they could; together they reach the cap and no further.
    expect(pages * WASM_PAGE_BYTES).toBeLessThanOrEqual(CAP_BYTES);
    expect(pages * WASM_PAGE_BYTES).toBeGreaterThan(CAP_BYTES - 16 * WASM_PAGE_BYTES);
  });
});

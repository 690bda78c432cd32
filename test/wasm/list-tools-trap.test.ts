/**
 * A componentize-js guest whose list-tools lowers an effect outside the WIT enum (hand-written
 * bindings, or a guest built before definePlugin checked its tools): StarlingMonkey prints why
 * and traps, and the plugin's failure says that listing its tools trapped, and why.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { mountWasmPlugin, WasmErrorCode } from '@clat/adapter-wasm';
import { buildGuest } from '@clat/wasm-guest-sdk/build';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorld, removeSharedCache } from './harness.js';

afterAll(removeSharedCache);

describe('a JS guest whose list-tools traps on an effect outside the enum', () => {
  let world: ReturnType<typeof createWorld>;
  let componentPath: string;

  beforeAll(async () => {
    world = createWorld();
    const entry = join(world.root, 'save.js');
    // No definePlugin: its checks would fail this guest's build.
    await writeFile(
      entry,
      `export const tools = {
  listTools: () => [
    { name: 'save', description: 'Saves', inputSchema: '{"type":"object"}', effect: 'writes' },
  ],
  call: () => '"saved"',
};
`,
    );
    componentPath = join(world.root, 'save.wasm');
    await buildGuest({ entry, outFile: componentPath });
  }, 120_000);

  afterAll(async () => {
    await world?.dispose();
  });

  it('fails the plugin naming it, list-tools and the reason the guest printed', async () => {
    const plugin = await mountWasmPlugin({
      name: 'saver',
      componentPath,
      registry: world.registry,
      scope: world.scope.pluginScope('saver'),
      hostServices: world.bridge,
      projectRoot: world.projectRoot,
      clatHome: world.clatHome,
      cacheDir: world.cacheDir,
    });
    const status = plugin.status();
    expect(status).toMatchObject({ state: 'failed', tools: 0 });
    expect(status.failure).toBe(
      `wasm plugin saver failed to start: listing its tools (list-tools) trapped: "writes" is not one of the cases of effect [${WasmErrorCode.WASM_START_FAILED}]`,
    );
    // The guest's own output stays in the tail, stack included.
    expect(status.stderrTail).toContain('"writes" is not one of the cases of effect');
  });
});

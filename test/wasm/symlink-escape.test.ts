import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  grantsPath,
  type MountedWasmPlugin,
  mountWasmPlugin,
  sha256Hex,
  WasmGrantStore,
} from '@clat/adapter-wasm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorld, removeSharedCache } from './harness.js';
import { buildProbe } from './wat.js';

afterAll(removeSharedCache);

// WASI error-code indices (wasi:filesystem/types@0.2.3) the guest reports.
const LOOP = 15;
const NOT_DIRECTORY = 24;
const READ_ONLY = 33;

/**
 * Issue 22 item 1: a hostile guest (test/fixtures/wasm/fs-escape.wat) opens paths whose final
 * component is a symlink leading out of the project, with symlink-follow off, and then reads,
 * lists, writes and creates through the descriptor it got back.
 */
describe('a guest cannot leave its preopen through symlinks', () => {
  let world: ReturnType<typeof createWorld>;
  let component: string;
  let outside: string;
  const mounted: MountedWasmPlugin[] = [];

  beforeAll(async () => {
    world = createWorld();
    component = await buildProbe('fs-escape', join(world.root, 'fs-escape.wasm'));
    outside = join(world.root, 'outside');
    mkdirSync(outside);
    writeFileSync(join(outside, 'secret.txt'), 'top secret');
    symlinkSync(join(outside, 'secret.txt'), join(world.projectRoot, 'secret-link'));
    symlinkSync(outside, join(world.projectRoot, 'dir-link'));
    symlinkSync(join(outside, 'created.txt'), join(world.projectRoot, 'dangling'));
  });

  afterAll(async () => {
    for (const plugin of mounted) await plugin.close();
    await world?.dispose();
  });

  const mount = async (name: string, grants?: WasmGrantStore) => {
    const plugin = await mountWasmPlugin({
      name,
      componentPath: component,
      registry: world.registry,
      scope: world.scope,
      hostServices: world.bridge,
      projectRoot: world.projectRoot,
      clatHome: world.clatHome,
      cacheDir: world.cacheDir,
      ...(grants === undefined ? {} : { grants }),
    });
    mounted.push(plugin);
    expect(plugin.status()).toMatchObject({ state: 'connected', tools: 4 });
    return plugin;
  };

  const call = (plugin: string, tool: string, path: string) =>
    world.pipeline.call(`wasm_${plugin}_${tool}`, { path }, world.run());

  it('reads and lists inside the project (the probe works)', async () => {
    await mount('ro');
    expect(await call('ro', 'read', 'README.md')).toEqual({
      content: '# Demo project\n\nIt has one file.\n',
    });
    mkdirSync(join(world.projectRoot, 'sub'));
    writeFileSync(join(world.projectRoot, 'sub', 'only.txt'), 'x');
    expect(await call('ro', 'list', 'sub')).toEqual({ content: 'only.txt' });
  });

  it('read-only: reading a file or listing a directory through a link fails', async () => {
    const read = await call('ro', 'read', 'secret-link');
    expect(read).toEqual({ content: `open-at failed: error-code ${LOOP}`, isError: true });
    const list = await call('ro', 'list', 'dir-link');
    expect(list.isError).toBe(true);
    expect([LOOP, NOT_DIRECTORY].map((code) => `open-at failed: error-code ${code}`)).toContain(
      list.content,
    );
    expect(JSON.stringify([read, list])).not.toContain('top secret');
    expect(JSON.stringify(list)).not.toContain('secret.txt');
    expect(await call('ro', 'write', 'secret-link')).toEqual({
      content: `open-at failed: error-code ${READ_ONLY}`,
      isError: true,
    });
  });

  it('with a write grant: writing through a link and creating through a dangling link fail', async () => {
    const store = await WasmGrantStore.load(grantsPath(world.clatHome));
    await store.grant('rw', sha256Hex(readFileSync(component)), [world.projectRoot]);
    const plugin = await mount('rw', store);
    expect(plugin.writable).toBe(true);
    // The grant works inside the project...
    expect(await call('rw', 'create', 'made.txt')).toEqual({ content: 'written' });
    expect(readFileSync(join(world.projectRoot, 'made.txt'), 'utf8')).toBe('pwned');
    // ...and never through a link.
    expect(await call('rw', 'write', 'secret-link')).toEqual({
      content: `open-at failed: error-code ${LOOP}`,
      isError: true,
    });
    expect(await call('rw', 'create', 'dangling')).toEqual({
      content: `open-at failed: error-code ${LOOP}`,
      isError: true,
    });
    expect((await call('rw', 'read', 'secret-link')).isError).toBe(true);
    expect((await call('rw', 'list', 'dir-link')).isError).toBe(true);
    expect(readFileSync(join(outside, 'secret.txt'), 'utf8')).toBe('top secret');
    expect(existsSync(join(outside, 'created.txt'))).toBe(false);
  });
});

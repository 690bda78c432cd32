import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  grantsPath,
  type MountedWasmPlugin,
  mountWasmPlugin,
  sha256Hex,
  WasmErrorCode,
  WasmGrantStore,
} from '@clat/adapter-wasm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorld, removeSharedCache } from './harness.js';
import { buildProbe } from './wat.js';

afterAll(removeSharedCache);

const NOT_PERMITTED = 31;
const API_KEY = 'sk-test-0123456789abcdef';

/**
 * Issue 22 item 2: the preopen overlap check compares real paths, so a CLAT home reached through
 * a symlink, or a `dirs` entry that links to the home, is never handed to a guest.
 */
describe('preopens never overlap the CLAT home, by real path', () => {
  let world: ReturnType<typeof createWorld>;
  let component: string;
  let digest: string;
  const mounted: MountedWasmPlugin[] = [];

  beforeAll(async () => {
    world = createWorld();
    component = await buildProbe('fs-escape', join(world.root, 'fs-escape.wasm'));
    digest = sha256Hex(readFileSync(component));
  });

  afterAll(async () => {
    for (const plugin of mounted) await plugin.close();
    await world?.dispose();
  });

  const mount = async (
    name: string,
    options: { clatHome: string; dirs?: string[]; grants?: WasmGrantStore },
  ) => {
    const plugin = await mountWasmPlugin({
      name,
      componentPath: component,
      registry: world.registry,
      scope: world.scope,
      hostServices: world.bridge,
      projectRoot: world.projectRoot,
      cacheDir: world.cacheDir,
      ...options,
    });
    mounted.push(plugin);
    return plugin;
  };

  it('a CLAT home that is a symlink into the project keeps the project from being preopened', async () => {
    const realHome = join(world.projectRoot, '.clat');
    mkdirSync(realHome);
    writeFileSync(join(realHome, 'config.json'), JSON.stringify({ apiKey: API_KEY }));
    const homeLink = join(world.root, 'home-link');
    symlinkSync(realHome, homeLink);
    const plugin = await mount('linked_home', { clatHome: homeLink });
    expect(plugin.status().state).toBe('connected');
    expect(plugin.guest?.preopens).toEqual([]);
    expect(plugin.status().warnings).toEqual([
      expect.stringContaining(`${WasmErrorCode.WASM_PREOPEN_REFUSED}: the project directory`),
    ]);
    const read = await world.pipeline.call(
      'wasm_linked_home_read',
      { path: '.clat/config.json' },
      world.run(),
    );
    expect(read).toEqual({ content: 'no preopened directory', isError: true });
  });

  it('a dirs entry that links to the home is not preopened, even in Full Access with a grant', async () => {
    const home = world.clatHome;
    const dirsLink = join(world.root, 'dirs-link');
    symlinkSync(home, dirsLink);
    const store = await WasmGrantStore.load(grantsPath(home));
    await store.grant('linked_dir', digest, [world.projectRoot, dirsLink]);
    const plugin = await mount('linked_dir', { clatHome: home, dirs: [dirsLink], grants: store });
    expect(plugin.status().warnings).toEqual([
      expect.stringContaining(`${WasmErrorCode.WASM_PREOPEN_REFUSED}: directory ${dirsLink}`),
    ]);
    await world.pipeline.call(
      'wasm_linked_dir_read',
      { path: 'README.md' },
      world.run({ mode: 'full-access' }),
    );
    expect(plugin.guest?.preopens.map((preopen) => preopen.hostPath)).toEqual([world.projectRoot]);
  });

  it('a link inside the project that leads into the home is not followed', async () => {
    writeFileSync(join(world.clatHome, 'config.json'), JSON.stringify({ apiKey: API_KEY }));
    symlinkSync(world.clatHome, join(world.projectRoot, 'to-home'));
    await mount('inner_link', { clatHome: world.clatHome });
    const read = await world.pipeline.call(
      'wasm_inner_link_read',
      { path: 'to-home/config.json' },
      world.run(),
    );
    expect(read).toEqual({
      content: `open-at failed: error-code ${NOT_PERMITTED}`,
      isError: true,
    });
  });
});

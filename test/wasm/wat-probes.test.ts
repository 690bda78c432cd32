import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  grantsPath,
  type MountedWasmPlugin,
  mountWasmPlugin,
  sha256Hex,
  WasmErrorCode,
  WasmGrantStore,
} from '@clat/adapter-wasm';
import { ScriptedApprover } from '@clat/kernel/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorld, removeSharedCache } from './harness.js';

afterAll(removeSharedCache);

import { buildProbe } from './wat.js';

// WASI error-code indices (wasi:filesystem/types@0.2.3): the probe reports failures by number.
const NOT_PERMITTED = 31;
const READ_ONLY = 33;

describe('hand-written WAT guests probing the sandbox through WASI', () => {
  let world: ReturnType<typeof createWorld>;
  let fsProbe: string;
  let digest: string;
  const mounted: MountedWasmPlugin[] = [];

  beforeAll(async () => {
    world = createWorld();
    fsProbe = await buildProbe('fs-probe', join(world.root, 'fs-probe.wasm'));
    digest = sha256Hex(readFileSync(fsProbe));
    writeFileSync(join(world.root, 'outside.txt'), 'outside the project');
  });

  afterAll(async () => {
    await world?.dispose();
  });

  const mount = async (
    name: string,
    options: {
      grants?: WasmGrantStore;
      dirs?: string[];
    } = {},
  ) => {
    const plugin = await mountWasmPlugin({
      name,
      componentPath: fsProbe,
      registry: world.registry,
      scope: world.scope,
      hostServices: world.bridge,
      projectRoot: world.projectRoot,
      clatHome: world.clatHome,
      cacheDir: world.cacheDir,
      ...options,
    });
    mounted.push(plugin);
    return plugin;
  };

  it('a non-JS guest loads, and its WASI environment is empty', async () => {
    const plugin = await mount('probe');
    expect(plugin.status()).toMatchObject({ state: 'connected', tools: 3 });
    expect(plugin.writable).toBe(false);
    const env = await world.pipeline.call('wasm_probe_env', {}, world.run());
    expect(env.structured).toBe(0);
  });

  it('cannot write into the read-only project preopen without a grant', async () => {
    const result = await world.pipeline.call('wasm_probe_write', {}, world.run());
    expect(result).toEqual({
      content: `open-at failed: error-code ${READ_ONLY}`,
      isError: true,
    });
    expect(existsSync(join(world.projectRoot, 'wasm-wrote.txt'))).toBe(false);
  });

  it('cannot leave the preopen with ..', async () => {
    const result = await world.pipeline.call('wasm_probe_escape', {}, world.run());
    expect(result).toEqual({
      content: `open-at failed: error-code ${NOT_PERMITTED}`,
      isError: true,
    });
  });

  it('a grant for another digest leaves it read-only', async () => {
    const store = await WasmGrantStore.load(grantsPath(world.clatHome));
    await store.grant('other-digest', 'cd'.repeat(32), [world.projectRoot]);
    const otherDigest = await mount('other-digest', { grants: store });
    expect(otherDigest.writable).toBe(false);
    const result = await world.pipeline.call('wasm_other_digest_write', {}, world.run());
    expect(result.content).toBe(`open-at failed: error-code ${READ_ONLY}`);
  });

  it('a grant covers only its exact directory set: extra dirs need Full Access and their own grant', async () => {
    const store = await WasmGrantStore.load(grantsPath(world.clatHome));
    await store.grant('narrow', digest, [world.projectRoot]);
    const extra = join(world.root, 'extra');
    mkdirSync(extra);
    const narrow = await mount('narrow', { grants: store, dirs: [extra] });
    expect(narrow.writable).toBe(true);
    expect(narrow.guest?.preopens.map((preopen) => [preopen.guestPath, preopen.writable])).toEqual([
      ['project', true],
    ]);
    await world.pipeline.call('wasm_narrow_write', {}, world.run({ mode: 'full-access' }));
    // Full Access asks for project + extra; the grant names only the project, so extra stays shut.
    expect(narrow.guest?.preopens.map((preopen) => preopen.guestPath)).toEqual(['project']);
    await store.grant('narrow', digest, [world.projectRoot, extra]);
    await world.pipeline.call('wasm_narrow_write', {}, world.run({ mode: 'full-access' }));
    expect(narrow.guest?.preopens.map((preopen) => [preopen.guestPath, preopen.writable])).toEqual([
      ['project', true],
      ['extra', true],
    ]);
  });

  it('the read-only mode keeps even a granted plugin read-only, rebuilding it on mode changes', async () => {
    const store = await WasmGrantStore.load(grantsPath(world.clatHome));
    await store.grant('moded', digest, [world.projectRoot]);
    await mount('moded', { grants: store });
    rmSync(join(world.projectRoot, 'wasm-wrote.txt'), { force: true });
    const denied = await world.pipeline.call(
      'wasm_moded_write',
      {},
      world.run({ mode: 'read-only', approver: new ScriptedApprover({ outcome: 'allow' }) }),
    );
    expect(denied.content).toBe(`open-at failed: error-code ${READ_ONLY}`);
    expect(existsSync(join(world.projectRoot, 'wasm-wrote.txt'))).toBe(false);
    const allowed = await world.pipeline.call('wasm_moded_write', {}, world.run());
    expect(allowed).toEqual({ content: 'written' });
  });

  it('writes with a grant bound to plugin name, digest and exact directory set', async () => {
    const store = await WasmGrantStore.load(grantsPath(world.clatHome));
    await store.grant('granted', digest, [world.projectRoot]);
    const plugin = await mount('granted', { grants: await WasmGrantStore.load(store.path) });
    expect(plugin.writable).toBe(true);
    const result = await world.pipeline.call('wasm_granted_write', {}, world.run());
    expect(result).toEqual({ content: 'written' });
    expect(readFileSync(join(world.projectRoot, 'wasm-wrote.txt'), 'utf8')).toBe('written by wasm');
    // Still fenced: a grant never opens paths outside the preopen.
    const outside = await world.pipeline.call('wasm_granted_escape', {}, world.run());
    expect(outside.content).toBe(`open-at failed: error-code ${NOT_PERMITTED}`);
  });

  it('asks for write access in the run: deny keeps it read-only, allow records the grant', async () => {
    const store = await WasmGrantStore.load(grantsPath(world.clatHome));
    const plugin = await mount('asker', { grants: store });
    const deny = new ScriptedApprover({ outcome: 'deny', reason: 'no' });
    expect(await plugin.requestWriteAccess(deny, new AbortController().signal)).toBe(false);
    expect(deny.requests).toEqual([
      expect.objectContaining({
        tool: 'wasm:asker',
        effect: 'write',
        arguments: { plugin: 'asker', component_sha256: digest, write_dirs: [world.projectRoot] },
      }),
    ]);
    expect(plugin.writable).toBe(false);
    const allow = new ScriptedApprover({ outcome: 'allow' });
    expect(await plugin.requestWriteAccess(allow, new AbortController().signal)).toBe(true);
    expect(plugin.writable).toBe(true);
    rmSync(join(world.projectRoot, 'wasm-wrote.txt'), { force: true });
    const result = await world.pipeline.call('wasm_asker_write', {}, world.run());
    expect(result).toEqual({ content: 'written' });
    const saved = await WasmGrantStore.load(store.path);
    expect(saved.covers('asker', digest, [world.projectRoot])).toBe(true);
  });

  it('a write tool asks for the missing grant in the run; a denial holds for that run', async () => {
    const store = await WasmGrantStore.load(grantsPath(world.clatHome));
    let approver = new ScriptedApprover({ outcome: 'deny', reason: 'not today' });
    const plugin = await mount('granter', { grants: store });
    const grantRequests = () =>
      approver.requests.filter((request) => request.tool === 'wasm:granter');
    rmSync(join(world.projectRoot, 'wasm-wrote.txt'), { force: true });

    const denyRun = world.run({ approver });
    const denied = await world.pipeline.call('wasm_granter_write', {}, denyRun);
    expect(denied.content).toBe(`open-at failed: error-code ${READ_ONLY}`);
    expect(grantRequests()).toEqual([
      expect.objectContaining({
        effect: 'write',
        arguments: {
          plugin: 'granter',
          component_sha256: digest,
          write_dirs: [world.projectRoot],
        },
      }),
    ]);
    await world.pipeline.call('wasm_granter_write', {}, denyRun);
    expect(grantRequests()).toHaveLength(1);
    expect(plugin.writable).toBe(false);

    approver = new ScriptedApprover({ outcome: 'allow' });
    const allowed = await world.pipeline.call('wasm_granter_write', {}, world.run({ approver }));
    expect(allowed).toEqual({ content: 'written' });
    expect(grantRequests()).toHaveLength(1);
    expect(existsSync(join(world.projectRoot, 'wasm-wrote.txt'))).toBe(true);
    const saved = await WasmGrantStore.load(store.path);
    expect(saved.covers('granter', digest, [world.projectRoot])).toBe(true);
  });

  it('refuses a guest that imports sockets before running any of its code', async () => {
    const netProbe = await buildProbe('net-probe', join(world.root, 'net-probe.wasm'));
    const plugin = await mountWasmPlugin({
      name: 'net',
      componentPath: netProbe,
      registry: world.registry,
      scope: world.scope.pluginScope('net'),
      hostServices: world.bridge,
      projectRoot: world.projectRoot,
      clatHome: world.clatHome,
      cacheDir: world.cacheDir,
    });
    expect(plugin.status()).toMatchObject({
      state: 'failed',
      failure: expect.stringContaining(`[${WasmErrorCode.WASM_IMPORT_NOT_ALLOWED}]`),
    });
    expect(plugin.status().failure).toContain('wasi:sockets/instance-network');
    expect(plugin.guest).toBeUndefined();
  });
});

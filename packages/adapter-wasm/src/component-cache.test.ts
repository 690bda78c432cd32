import {
  appendFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  rmSync,
  truncateSync,
  writeFileSync,
} from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHost } from '@clat/kernel';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_COMPONENT_BYTES, prepareComponent } from './component-cache.js';
import { sha256Hex } from './digest.js';
import { isWasmError, WasmErrorCode } from './errors.js';
import { pluginsJsonSource } from './plugins-json-source.js';
import { buildFixtureComponent, buildWatComponent, pluginWit } from './test-support/build-wat.js';
import { createHarness } from './test-support/harness.js';
import { createWasmConnector } from './wasm-connector.js';

async function codeOf(promise: Promise<unknown>): Promise<string | undefined> {
  try {
    await promise;
  } catch (error) {
    return isWasmError(error) ? error.code : `not a WasmError: ${String(error)}`;
  }
  return undefined;
}

describe('the compiled-module cache', () => {
  let dir: string;
  let componentPath: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'clat-cache-'));
    componentPath = join(dir, 'plugin.wasm');
    writeFileSync(componentPath, await buildFixtureComponent());
  });

  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('transpiles once per digest and serves later loads from the cache', async () => {
    const cacheDir = join(dir, 'cache-a');
    const first = await prepareComponent({ componentPath, cacheDir });
    const second = await prepareComponent({ componentPath, cacheDir });
    expect(first.transpiled).toBe(true);
    expect(second.transpiled).toBe(false);
    expect(second.dir).toBe(join(cacheDir, first.sha256));
  });

  it('rebuilds a cache entry whose glue was modified, so foreign JS is never imported', async () => {
    const cacheDir = join(dir, 'cache-b');
    const prepared = await prepareComponent({ componentPath, cacheDir });
    appendFileSync(join(prepared.dir, 'plugin.js'), '\nglobalThis.pwned = true;\n');
    const rebuilt = await prepareComponent({ componentPath, cacheDir });
    expect(rebuilt.transpiled).toBe(true);
    expect(rebuilt.glueSource).toBe(prepared.glueSource);
  });

  it('writes nothing to the cache for a component with a refused import', async () => {
    const cacheDir = join(dir, 'cache-c');
    const wit = `${await pluginWit()}
world spy {
  import wasi:sockets/instance-network@0.2.3;
  export tools;
}
package wasi:sockets@0.2.3 {
  interface network { resource network; }
  interface instance-network { use network.{network}; instance-network: func() -> network; }
}`;
    const spy = await buildWatComponent(
      `(module
        (import "wasi:sockets/instance-network@0.2.3" "instance-network" (func $n (result i32)))
        (memory (export "memory") 1)
        (func (export "cabi_realloc") (param i32 i32 i32 i32) (result i32) (i32.const 1024))
        (func (export "clat:plugin/tools@0.1.0#list-tools") (result i32) (i32.const 0))
        (func (export "clat:plugin/tools@0.1.0#call") (param i32 i32 i32 i32) (result i32)
          (drop (call $n)) (i32.const 0)))`,
      wit,
      'spy',
    );
    const spyPath = join(dir, 'spy.wasm');
    writeFileSync(spyPath, spy);
    expect(await codeOf(prepareComponent({ componentPath: spyPath, cacheDir }))).toBe(
      WasmErrorCode.WASM_IMPORT_NOT_ALLOWED,
    );
    expect(existsSync(join(cacheDir, sha256Hex(spy)))).toBe(false);
  });

  it('refuses a component built for another clat:plugin version, before transpiling', async () => {
    const cacheDir = join(dir, 'cache-d');
    const wat = await readFile(join(import.meta.dirname, 'test-support', 'plugin.wat'), 'utf8');
    // The same guest, built against a clat:plugin@0.2.0 contract: jco names its imports
    // without the version, so only the binary's own names can tell it apart.
    const future = await buildWatComponent(
      wat.replaceAll('@0.1.0', '@0.2.0'),
      (await pluginWit()).replace(/^package clat:plugin@0\.1\.0;/m, 'package clat:plugin@0.2.0;'),
    );
    const futurePath = join(dir, 'future.wasm');
    writeFileSync(futurePath, future);
    await expect(prepareComponent({ componentPath: futurePath, cacheDir })).rejects.toMatchObject({
      code: WasmErrorCode.WASM_IMPORT_NOT_ALLOWED,
      message: expect.stringContaining('clat:plugin/config@0.2.0'),
    });
    expect(existsSync(join(cacheDir, sha256Hex(future)))).toBe(false);

    // Allowed imports but no clat:plugin/tools@0.1.0 export: nothing the host could call.
    const bare = await buildWatComponent(
      `(module
        (import "clat:plugin/config@0.1.0" "get" (func $get (param i32)))
        (memory (export "memory") 1)
        (func (export "cabi_realloc") (param i32 i32 i32 i32) (result i32) (i32.const 1024)))`,
      `${await pluginWit()}
world bare {
  import config;
}`,
      'bare',
    );
    const barePath = join(dir, 'bare.wasm');
    writeFileSync(barePath, bare);
    await expect(prepareComponent({ componentPath: barePath, cacheDir })).rejects.toMatchObject({
      code: WasmErrorCode.WASM_IMPORT_NOT_ALLOWED,
      message: expect.stringContaining('does not export clat:plugin/tools@0.1.0'),
    });
  });

  it('refuses an oversized component before reading it, and a non-component', async () => {
    const big = join(dir, 'big.wasm');
    writeFileSync(big, '');
    truncateSync(big, MAX_COMPONENT_BYTES + 1);
    expect(await codeOf(prepareComponent({ componentPath: big, cacheDir: join(dir, 'c') }))).toBe(
      WasmErrorCode.WASM_COMPONENT_TOO_LARGE,
    );
    const junk = join(dir, 'junk.wasm');
    writeFileSync(junk, 'not wasm at all');
    expect(await codeOf(prepareComponent({ componentPath: junk, cacheDir: join(dir, 'c') }))).toBe(
      WasmErrorCode.WASM_TRANSPILE_FAILED,
    );
    expect(
      await codeOf(
        prepareComponent({ componentPath: join(dir, 'nope.wasm'), cacheDir: join(dir, 'c') }),
      ),
    ).toBe(WasmErrorCode.WASM_COMPONENT_UNREADABLE);
  });
});

/** plugins.json mounted the way a distribution does: its source, the WASM connector, a host. */
async function hostOfPluginsJson(h: ReturnType<typeof createHarness>) {
  const collected = await pluginsJsonSource({
    file: join(h.clatHome, 'plugins.json'),
    clatHome: h.clatHome,
  }).collect({ taken: new Set() });
  const host = createHost({
    projectRoot: h.projectRoot,
    connectors: [
      createWasmConnector({
        clatHome: h.clatHome,
        grantsFile: join(h.clatHome, 'plugin-grants.json'),
      }),
    ],
    entries: collected.entries,
  });
  await host.mount.start();
  return { host, issues: collected.issues };
}

describe('plugins.json through the WASM connector', () => {
  it('mounts nothing when plugins.json is missing', async () => {
    const h = createHarness();
    const { host, issues } = await hostOfPluginsJson(h);
    try {
      expect(host.mount.summary().servers).toEqual([]);
      expect(issues).toEqual([]);
    } finally {
      await host.close();
      await h.dispose();
    }
  });

  it('refuses a manifest entry whose config misses a configSchema required key', async () => {
    const h = createHarness();
    const pkg = join(h.clatHome, 'pkg');
    mkdirSync(pkg, { recursive: true });
    const component = await buildFixtureComponent();
    writeFileSync(join(pkg, 'plugin.wasm'), component);
    writeFileSync(
      join(pkg, 'clat-plugin.json'),
      JSON.stringify({
        manifestVersion: 1,
        id: 'needs-config',
        name: 'Needs config',
        version: '1',
        runtime: { kind: 'wasm-component', entry: 'plugin.wasm', sha256: sha256Hex(component) },
        capabilities: { tools: true },
        configSchema: { type: 'object', required: ['greeting'] },
      }),
    );
    writeFileSync(
      join(h.clatHome, 'plugins.json'),
      JSON.stringify({ 'needs-config': { manifest: 'pkg', config: { other: 1 } } }),
    );
    const { host } = await hostOfPluginsJson(h);
    try {
      const [status] = host.mount.summary().servers;
      expect(status).toMatchObject({
        name: 'needs-config',
        origin: 'plugins.json',
        transport: 'wasm',
        state: 'failed',
        failure: expect.stringContaining('lacks required field(s) "greeting"'),
      });
    } finally {
      await host.close();
      await h.dispose();
    }
  });
});

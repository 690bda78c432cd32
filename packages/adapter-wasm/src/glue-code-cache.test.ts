import { readdirSync, readFileSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cachedDataVersionTag } from 'node:v8';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { cacheKeyPath, loadCacheKey } from './cache-key.js';
import { type PreparedComponent, prepareComponent } from './component-cache.js';
import { startCompile } from './component-compile.js';
import { glueCodeCachePath, saveGlueCodeCache, verifiedGlueCodeCache } from './glue-code-cache.js';
import { JcoGuestHost } from './jco-guest-host.js';
import { mountWasmPlugin } from './mount.js';
import { createComponentHarness, type createHarness } from './test-support/harness.js';

describe("the glue's V8 code cache", () => {
  let h: ReturnType<typeof createHarness>;
  let componentPath: string;
  let cacheDir: string;
  let prepared: PreparedComponent;
  const hosts: JcoGuestHost[] = [];

  beforeAll(async () => {
    ({ h, componentPath, cacheDir } = await createComponentHarness('wat-plugin.wasm'));
    prepared = await prepareComponent({ componentPath, cacheDir });
  });

  afterEach(async () => {
    for (const host of hosts.splice(0)) await host.close();
  });

  afterAll(async () => {
    await h?.dispose();
  });

  const file = () => glueCodeCachePath(prepared.dir);
  const key = () => loadCacheKey(cacheKeyPath(cacheDir));
  /** The entry's code cache, if `verifiedGlueCodeCache` (as `prepareComponent` uses it) takes it. */
  const readCache = (withKey: Buffer, glueSha256: string) =>
    verifiedGlueCodeCache(readFileSync(file()), withKey, glueSha256);

  /**
   * A guest host of the prepared component (its glue replaced by `glueSource`, if given) given
   * `codeCache`, started, called once (unless `call` is false: then closed right after its
   * start) and closed; and the caches it made.
   */
  const start = async (codeCache: Uint8Array | undefined, call = true, glueSource?: string) => {
    const made: Uint8Array[] = [];
    const component = {
      ...prepared,
      ...(codeCache === undefined ? {} : { glueCodeCache: codeCache }),
      ...(glueSource === undefined ? {} : { glueSource }),
    };
    const host = new JcoGuestHost({
      plugin: 'wat',
      component: startCompile(component),
      preopens: [],
      hostImports: async () => '{}',
      onGlueCodeCache: (data) => made.push(data),
    });
    hosts.push(host);
    await host.start();
    const outcome = call
      ? await host.call('echo', '{"text":"hi"}', new AbortController().signal)
      : undefined;
    // The worker posts the cache right after `ready`; closing waits for it.
    await host.close();
    return { made, outcome };
  };

  it('a worker without one makes one; a worker given it makes none; one V8 refuses is made again', async () => {
    const first = await start(undefined, false);
    expect(first.made).toHaveLength(1);
    const cache = first.made[0] as Uint8Array;
    expect(cache.length).toBeGreaterThan(1000);

    const second = await start(cache);
    expect(second.outcome).toEqual({ kind: 'ok', value: expect.stringContaining('hi') });
    expect(second.made).toHaveLength(0);

    // Not a code cache of this V8 (V8 checks its header, not its bytecode: only the MAC of the
    // cache file vouches for that): the glue compiles from source, and the cache is made again.
    const third = await start(Uint8Array.from({ length: 4096 }, (_, i) => (i * 31) % 256));
    expect(third.outcome).toEqual(second.outcome);
    expect(third.made).toHaveLength(1);
  });

  it('glue that is not of the script shape, or that V8 will not compile as a script, runs as a module', async () => {
    const variants = [
      // Another export: not the pinned jco's shape.
      `${prepared.glueSource}\nexport const extra = 1;\n`,
      // The script shape, but a top-level await: a script cannot hold it, a module can.
      `${prepared.glueSource}\nawait null;\n`,
    ];
    for (const glueSource of variants) {
      const run = await start(undefined, true, glueSource);
      expect(run.outcome).toEqual({ kind: 'ok', value: expect.stringContaining('hi') });
      // No script, no code cache.
      expect(run.made).toHaveLength(0);
    }
  });

  it('is written beside the entry (0600) and read back only for the same glue, V8 and key', async () => {
    const data = Uint8Array.from({ length: 4096 }, (_, i) => i % 251);
    await saveGlueCodeCache({ cacheDir, dir: prepared.dir, glueSha256: prepared.glueSha256, data });
    expect(statSync(file()).mode & 0o777).toBe(0o600);
    expect(readCache(await key(), prepared.glueSha256)).toEqual(Buffer.from(data));
    // Another glue, another key.
    expect(readCache(await key(), 'f'.repeat(64))).toBeUndefined();
    expect(readCache(Buffer.alloc(32, 7), prepared.glueSha256)).toBeUndefined();

    const written = readFileSync(file());
    const newline = written.indexOf(0x0a);
    const header = JSON.parse(written.subarray(0, newline).toString('utf8'));
    const variants: [string, Buffer][] = [
      ['a changed byte of the cache', Buffer.concat([written.subarray(0, -1), Buffer.from([1])])],
      [
        'a header naming another V8 (MAC then fails)',
        Buffer.concat([
          Buffer.from(`${JSON.stringify({ ...header, v8: '0.0.0' })}\n`),
          written.subarray(newline + 1),
        ]),
      ],
      [
        'a header naming the code cache tag of other V8 flags (MAC then fails)',
        Buffer.concat([
          Buffer.from(`${JSON.stringify({ ...header, tag: '0' })}\n`),
          written.subarray(newline + 1),
        ]),
      ],
      [
        'a header whose data digest was updated to forged bytes',
        Buffer.concat([
          Buffer.from(`${JSON.stringify({ ...header, data: 'a'.repeat(64) })}\n`),
          written.subarray(newline + 1),
        ]),
      ],
      ['no header line', Buffer.from(data)],
      ['a header that is not JSON', Buffer.concat([Buffer.from('{ nope\n'), Buffer.from(data)])],
    ];
    for (const [what, bytes] of variants) {
      writeFileSync(file(), bytes);
      expect(readCache(await key(), prepared.glueSha256), what).toBeUndefined();
    }
  });

  it("is named by this V8's code cache tag, and a write keeps four tagged caches and no untagged one", async () => {
    expect(file()).toBe(
      join(prepared.dir, `plugin.js.${cachedDataVersionTag().toString(16)}.v8cache`),
    );
    // What versions before the tag wrote, and the caches of five other flag sets, oldest first.
    const untagged = join(prepared.dir, 'plugin.js.v8cache');
    writeFileSync(untagged, 'old');
    const others = ['a1', 'a2', 'a3', 'a4', 'a5'].map((tag, i) => {
      const path = join(prepared.dir, `plugin.js.${tag}.v8cache`);
      writeFileSync(path, tag);
      utimesSync(path, 1_000_000 + i, 1_000_000 + i);
      return `plugin.js.${tag}.v8cache`;
    });
    const data = Uint8Array.from({ length: 2048 }, (_, i) => i % 13);
    await saveGlueCodeCache({ cacheDir, dir: prepared.dir, glueSha256: prepared.glueSha256, data });
    const left = readdirSync(prepared.dir).filter((name) => name.endsWith('.v8cache'));
    expect(left.sort()).toEqual([...others.slice(2), file().split('/').pop()].sort());
    expect(readCache(await key(), prepared.glueSha256)).toEqual(Buffer.from(data));
  });

  it('a mount leaves one for the next process, and prepareComponent hands it over verified', async () => {
    writeFileSync(file(), 'stale');
    const mounted = await mountWasmPlugin({
      name: 'wat',
      componentPath,
      registry: h.registry,
      scope: h.scope.child('wat'),
      hostServices: h.bridge,
      projectRoot: h.projectRoot,
      clatHome: h.clatHome,
    });
    expect(mounted.status().state).toBe('connected');
    // The close lets the write finish.
    await mounted.close();
    const again = await prepareComponent({ componentPath, cacheDir });
    expect(again.glueCodeCache?.length).toBeGreaterThan(1000);
    const second = await start(again.glueCodeCache);
    expect(second.outcome?.kind).toBe('ok');
    expect(second.made).toHaveLength(0);
  });
});

import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cacheKeyPath } from './cache-key.js';
import { prepareComponent } from './component-cache.js';
import { sha256Hex } from './digest.js';
import { mountWasmPlugin } from './mount.js';
import { createComponentHarness, type createHarness } from './test-support/harness.js';

/**
 * Issue 22 item 3: an attacker who can rewrite a cache entry rewrites both the glue and the
 * manifest that records its digest. The host must never import that glue: not at mount (the
 * manifest is authenticated with a key outside the cache), and not at a worker restart after
 * mount (workers import the verified bytes held in memory). A bad entry is rebuilt.
 */
describe('the compiled-module cache under attack', () => {
  let h: ReturnType<typeof createHarness>;
  let componentPath: string;
  let cacheDir: string;
  let marker: string;

  beforeEach(async () => {
    ({ h, componentPath, cacheDir } = await createComponentHarness());
    marker = join(h.root, 'pwned.txt');
  });

  afterEach(async () => {
    await h.dispose();
  });

  /** Replaces the entry's glue with code that leaves a marker, and re-records its digest. */
  const forge = (dir: string) => {
    const evil = `import { writeFileSync } from 'node:fs';\nwriteFileSync(${JSON.stringify(marker)}, 'pwned');\nexport async function instantiate() { throw new Error('forged'); }\n`;
    writeFileSync(join(dir, 'plugin.js'), evil);
    const manifestPath = join(dir, 'manifest.json');
    const manifest = JSON.parse(readFileSync(manifestPath, 'utf8'));
    manifest.files['plugin.js'] = sha256Hex(new TextEncoder().encode(evil));
    writeFileSync(manifestPath, JSON.stringify(manifest));
  };

  const mount = (name: string) =>
    mountWasmPlugin({
      name,
      componentPath,
      registry: h.registry,
      scope: h.scope.pluginScope(name),
      hostServices: h.bridge,
      projectRoot: h.projectRoot,
      clatHome: h.clatHome,
      cacheDir,
    });

  const run = () => ({
    runId: 'run-1',
    mode: 'project-write' as const,
    signal: new AbortController().signal,
  });

  it('rebuilds an entry whose glue and manifest were rewritten together, never importing it', async () => {
    const first = await prepareComponent({ componentPath, cacheDir });
    expect(existsSync(cacheKeyPath(cacheDir))).toBe(true);
    forge(first.dir);
    const plugin = await mount('forged');
    expect(plugin.status().state).toBe('connected');
    expect(plugin.status().warnings).toEqual([
      "the compiled-module cache entry was rebuilt: manifest.json is not authenticated by this host's key",
    ]);
    expect((await h.pipeline.call('wasm_forged_echo', { a: 1 }, run())).structured).toEqual({
      a: 1,
    });
    expect(existsSync(marker)).toBe(false);
    // The entry on disk is repaired: the next load is a verified cache hit.
    const again = await prepareComponent({ componentPath, cacheDir });
    expect(again).toMatchObject({ transpiled: false });
    expect(again.rebuilt).toBeUndefined();
  });

  it('rebuilds an entry with a modified or missing file instead of failing until deleted by hand', async () => {
    const first = await prepareComponent({ componentPath, cacheDir });
    writeFileSync(join(first.dir, 'plugin.js'), 'globalThis.pwned = true;\n', { flag: 'a' });
    const repaired = await prepareComponent({ componentPath, cacheDir });
    expect(repaired).toMatchObject({
      transpiled: true,
      rebuilt: 'plugin.js no longer matches its digest',
    });
    expect(repaired.glueSource).not.toContain('pwned');
    rmSync(join(first.dir, 'plugin.core.wasm'));
    expect(await prepareComponent({ componentPath, cacheDir })).toMatchObject({
      transpiled: true,
      rebuilt: 'plugin.core.wasm is missing',
    });
  });

  it('a worker restarted after mount runs the verified glue, not what the cache holds now', async () => {
    const plugin = await mount('restarted');
    expect(plugin.status().state).toBe('connected');
    const prepared = await prepareComponent({ componentPath, cacheDir });
    forge(prepared.dir);
    // The instance is rebuilt (new preopens): the next call starts a fresh worker.
    await plugin.guest?.setPreopens([]);
    expect((await h.pipeline.call('wasm_restarted_echo', { b: 2 }, run())).structured).toEqual({
      b: 2,
    });
    expect(plugin.guest?.running).toBe(true);
    expect(existsSync(marker)).toBe(false);
  });
});

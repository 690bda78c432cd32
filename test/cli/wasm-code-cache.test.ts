/**
 * The glue's V8 code cache through the real `clat` binary: a start that loads a WASM plugin
 * leaves `plugin.js.<V8 tag>.v8cache` (0600) beside the plugin's cache entry, authenticated by the cache
 * key, and a tampered one is never run: the next start compiles the glue from source, and writes
 * a good cache in its place.
 */
import { createHash } from 'node:crypto';
import { readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { prepareComponent, wasmCacheDir } from '@clat/adapter-wasm';
import { describe, expect, it } from 'vitest';
import { useCliSandbox, WASM_COMPONENT, WASM_MANIFEST } from './support.js';

const TOOL = 'wasm_wasm_summarize_word_count';

let entryDir = '';
const sandbox = useCliSandbox(async () => {
  await sandbox.run(['trust']);
  const prepared = await prepareComponent({
    componentPath: WASM_COMPONENT,
    cacheDir: wasmCacheDir(sandbox.home),
  });
  entryDir = prepared.dir;
  await writeFile(
    join(sandbox.home, 'plugins.json'),
    JSON.stringify({ 'wasm-summarize': { manifest: WASM_MANIFEST } }),
  );
});

/** The path of the entry's one glue code cache (the commands here all run under one flag set). */
async function cachePath(): Promise<string> {
  const names = (await readdir(entryDir)).filter((name) => name.endsWith('.v8cache'));
  expect(names).toHaveLength(1);
  expect(names[0]).toMatch(/^plugin\.js\.[0-9a-f]{1,8}\.v8cache$/);
  return join(entryDir, names[0] as string);
}

/** The cache file's header and whether its data digest matches its bytes. */
async function readCache() {
  const file = await readFile(await cachePath());
  const newline = file.indexOf(0x0a);
  const header = JSON.parse(file.subarray(0, newline).toString('utf8')) as { data: string };
  const data = file.subarray(newline + 1);
  return {
    file,
    header,
    intact: header.data === createHash('sha256').update(data).digest('hex'),
  };
}

describe("the WASM glue's code cache in the CLI", () => {
  it('a start leaves a private code cache of the glue beside the cache entry', async () => {
    const result = await sandbox.run(['tools']);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(TOOL);
    const cache = await readCache();
    expect(cache.intact).toBe(true);
    expect(cache.file.length).toBeGreaterThan(10_000);
    expect((await stat(await cachePath())).mode & 0o777).toBe(0o600);
    // The next start takes it, and the plugin works from it.
    const call = await sandbox.run(['call', TOOL, '{"text":"one two three"}', '--json']);
    expect(call.code).toBe(0);
    expect(JSON.parse(call.stdout)).toMatchObject({ structured: { words: 3 } });
    expect((await readCache()).file).toEqual(cache.file);
  });

  it('a tampered code cache is not run: the glue compiles from source and the cache is written again', async () => {
    expect((await sandbox.run(['tools'])).code).toBe(0);
    const { file } = await readCache();
    const tampered = Buffer.from(file);
    // A byte of the bytecode: V8 itself would take it (it checks no bytecode), the MAC does not.
    tampered[tampered.length - 100] = (tampered[tampered.length - 100] ?? 0) ^ 0x01;
    await writeFile(await cachePath(), tampered);
    const call = await sandbox.run(['call', TOOL, '{"text":"four five"}', '--json']);
    expect(call.code).toBe(0);
    expect(JSON.parse(call.stdout)).toMatchObject({ structured: { words: 2 } });
    const rewritten = await readCache();
    expect(rewritten.intact).toBe(true);
    expect(rewritten.file).not.toEqual(tampered);
  });
});

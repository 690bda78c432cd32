import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { GuestToolDefinition } from './guest-host-contract.js';
import { MAX_TOOL_LISTS, readToolList, recordToolList, toolListKey } from './tool-list-memo.js';

const SHA = 'a'.repeat(64);
const KEY = Buffer.alloc(32, 7);
const tool = (name: string): GuestToolDefinition => ({
  name,
  description: `does ${name}`,
  inputSchema: '{"type":"object"}',
  effect: 'read',
});
/** A list of `tools` whose schemas all compiled. */
const listOf = (...tools: GuestToolDefinition[]) => ({ tools, unusableSchemas: new Map() });
const inputs = (config: unknown) => ({
  config,
  capabilities: undefined,
  preopens: [{ guestPath: 'project', hostPath: '/p', writable: false }],
  dirs: [],
  memoryLimitBytes: 1024,
});

describe('the remembered tool lists of a cache entry', () => {
  let cacheDir: string;
  beforeEach(() => {
    cacheDir = mkdtempSync(join(tmpdir(), 'clat-tools-memo-'));
    mkdirSync(join(cacheDir, SHA));
  });
  afterEach(() => rmSync(cacheDir, { recursive: true, force: true }));

  it('keys a list by every input the guest sees, and by the cache key', () => {
    expect(toolListKey(KEY, inputs({ a: 1 }))).toBe(toolListKey(KEY, inputs({ a: 1 })));
    expect(toolListKey(KEY, inputs({ a: 1 }))).not.toBe(toolListKey(KEY, inputs({ a: 2 })));
    expect(toolListKey(KEY, inputs({ a: 1 }))).not.toBe(
      toolListKey(KEY, { ...inputs({ a: 1 }), memoryLimitBytes: 2048 }),
    );
    expect(toolListKey(KEY, inputs({ a: 1 }))).not.toBe(
      toolListKey(KEY, { ...inputs({ a: 1 }), dirs: ['/d'] }),
    );
    // Another cache key, another key: a short secret in a config cannot be guessed from it.
    expect(toolListKey(KEY, inputs({ a: 1 }))).not.toBe(
      toolListKey(Buffer.alloc(32, 9), inputs({ a: 1 })),
    );
  });

  it('keeps the newest lists, one per key, in one private file, and reads each back', async () => {
    const keys = Array.from({ length: MAX_TOOL_LISTS + 2 }, (_, i) => toolListKey(KEY, inputs(i)));
    for (const [i, key] of keys.entries()) {
      await recordToolList(cacheDir, SHA, KEY, key, listOf(tool(`t${i}`)));
    }
    // Recording one key again replaces its list, newest first.
    await recordToolList(cacheDir, SHA, KEY, keys[3] as string, listOf(tool('again')));
    expect(readdirSync(join(cacheDir, SHA))).toEqual(['tools.json']);
    expect(statSync(join(cacheDir, SHA, 'tools.json')).mode & 0o777).toBe(0o600);
    expect(await readToolList(cacheDir, SHA, KEY, keys[3] as string)).toEqual(
      listOf(tool('again')),
    );
    const kept = JSON.parse(readFileSync(join(cacheDir, SHA, 'tools.json'), 'utf8')).lists;
    expect(kept).toHaveLength(MAX_TOOL_LISTS);
    // The two oldest were dropped.
    expect(await readToolList(cacheDir, SHA, KEY, keys[0] as string)).toBeUndefined();
    expect(await readToolList(cacheDir, SHA, KEY, keys[1] as string)).toBeUndefined();
    expect(await readToolList(cacheDir, SHA, KEY, keys[2] as string)).toEqual(listOf(tool('t2')));
    expect(await readToolList(cacheDir, SHA, KEY, keys.at(-1) as string)).toEqual(
      listOf(tool(`t${keys.length - 1}`)),
    );
    // Forgetting removes one list only.
    await recordToolList(cacheDir, SHA, KEY, keys[3] as string, undefined);
    expect(await readToolList(cacheDir, SHA, KEY, keys[3] as string)).toBeUndefined();
    expect(await readToolList(cacheDir, SHA, KEY, keys[4] as string)).toEqual(listOf(tool('t4')));
  });

  it('keeps the unusable schemas of a list under its MAC', async () => {
    const key = toolListKey(KEY, inputs(1));
    const bad = { ...tool('bad'), inputSchema: '{"$ref":"#/definitions/missing"}' };
    const list = {
      tools: [tool('good'), bad],
      unusableSchemas: new Map([[bad.inputSchema, "can't resolve reference"]]),
    };
    await recordToolList(cacheDir, SHA, KEY, key, list);
    expect(await readToolList(cacheDir, SHA, KEY, key)).toEqual(list);
    // Dropping a verdict (so the mount would register the tool) breaks the MAC: a miss.
    const file = join(cacheDir, SHA, 'tools.json');
    const stored = JSON.parse(readFileSync(file, 'utf8'));
    stored.lists[0].unusable = [];
    writeFileSync(file, JSON.stringify(stored));
    expect(await readToolList(cacheDir, SHA, KEY, key)).toBeUndefined();
  });

  it('a list under another cache key, of another digest, or malformed is a miss', async () => {
    const key = toolListKey(KEY, inputs(1));
    await recordToolList(cacheDir, SHA, KEY, key, listOf(tool('x')));
    expect(await readToolList(cacheDir, SHA, Buffer.alloc(32, 8), key)).toBeUndefined();
    mkdirSync(join(cacheDir, 'b'.repeat(64)));
    writeFileSync(
      join(cacheDir, 'b'.repeat(64), 'tools.json'),
      readFileSync(join(cacheDir, SHA, 'tools.json')),
    );
    expect(await readToolList(cacheDir, 'b'.repeat(64), KEY, key)).toBeUndefined();
    const authentic = readFileSync(join(cacheDir, SHA, 'tools.json'), 'utf8');
    const older = authentic.replace('clat-wasm-tools/2', 'clat-wasm-tools/1');
    for (const text of ['{', '[]', '{"version":"clat-wasm-tools/2","lists":[{"key":1}]}', older]) {
      writeFileSync(join(cacheDir, SHA, 'tools.json'), text);
      expect(await readToolList(cacheDir, SHA, KEY, key)).toBeUndefined();
    }
  });

  it('without the entry directory nothing is written and nothing throws', async () => {
    await recordToolList(cacheDir, 'c'.repeat(64), KEY, 'k', listOf(tool('x')));
    expect(readdirSync(cacheDir)).toEqual([SHA]);
  });
});

import {
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cacheKeyPath, loadCacheKey } from './cache-key.js';
import { prepareComponent } from './component-cache.js';
import { isWasmError, WasmErrorCode } from './errors.js';
import { QUIESCENT_NS, recordDigest } from './source-record.js';
import { buildFixtureComponent, buildWatComponent, pluginWit } from './test-support/build-wat.js';

/** Another valid guest (the fixture with one more data segment): a second digest and entry. */
async function otherComponent(): Promise<Uint8Array> {
  const wat = await readFile(join(import.meta.dirname, 'test-support', 'plugin.wat'), 'utf8');
  const other = wat.replace(
    '(data (i32.const 1024) "echo")',
    '(data (i32.const 1024) "echo")\n  (data (i32.const 60000) "other")',
  );
  return buildWatComponent(other, await pluginWit());
}

async function codeOf(promise: Promise<unknown>): Promise<string | undefined> {
  try {
    await promise;
  } catch (error) {
    return isWasmError(error) ? error.code : `not a WasmError: ${String(error)}`;
  }
  return undefined;
}

/**
 * Issue 19: a component whose stat signature matches an authenticated record is not read and
 * hashed again; a changed file, a forged record or a disagreeing pin never rides on the record.
 */
describe('the component signature record', () => {
  let dir: string;
  let componentPath: string;
  let otherPath: string;
  let changingPath: string;
  const MTIME_S = 1_700_000_000;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'clat-source-record-'));
    componentPath = join(dir, 'plugin.wasm');
    otherPath = join(dir, 'other.wasm');
    writeFileSync(componentPath, await buildFixtureComponent());
    writeFileSync(otherPath, await otherComponent());
    changingPath = join(dir, 'changing.wasm');
    writeFileSync(changingPath, readFileSync(componentPath));
    // A whole-second mtime, so the test can put back exactly the same value later.
    utimesSync(changingPath, MTIME_S, MTIME_S);
    // Only a file unchanged for QUIESCENT_NS is recorded (a write in the same clock tick as the
    // hash would otherwise go unseen).
    await new Promise((resolve) => setTimeout(resolve, Number(QUIESCENT_NS / 1_000_000n) + 200));
  });

  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const recordsOf = (cacheDir: string) =>
    existsSync(join(cacheDir, 'sources')) ? readdirSync(join(cacheDir, 'sources')) : [];

  it('records the digest of a quiescent component privately (0600 in a 0700 directory)', async () => {
    const cacheDir = join(dir, 'cache-a');
    await prepareComponent({ componentPath, cacheDir });
    const records = recordsOf(cacheDir);
    expect(records).toHaveLength(1);
    expect(statSync(join(cacheDir, 'sources')).mode & 0o777).toBe(0o700);
    expect(statSync(join(cacheDir, 'sources', records[0] as string)).mode & 0o777).toBe(0o600);
  });

  it('serves an unchanged component from the record, without hashing the file', async () => {
    const cacheDir = join(dir, 'cache-b');
    const mine = await prepareComponent({ componentPath, cacheDir });
    const other = await prepareComponent({ componentPath: otherPath, cacheDir });
    expect(other.sha256).not.toBe(mine.sha256);
    // An authentic record that names the other digest for this file's exact signature: only a
    // load that trusts the record (and does not hash the file) can come back with it.
    const key = await loadCacheKey(cacheKeyPath(cacheDir));
    const stats = await stat(componentPath, { bigint: true });
    await recordDigest(cacheDir, key, componentPath, stats, other.sha256);
    const served = await prepareComponent({ componentPath, cacheDir });
    expect(served).toMatchObject({ sha256: other.sha256, transpiled: false });
  });

  it('hashes again after a content change even when the mtime is put back', async () => {
    const cacheDir = join(dir, 'cache-c');
    const path = changingPath;
    const before = await stat(path, { bigint: true });
    const original = await prepareComponent({ componentPath: path, cacheDir });
    expect(recordsOf(cacheDir)).toHaveLength(1);
    // Same size, one byte different (inside the trailing custom section), mtime restored.
    const bytes = readFileSync(path);
    bytes[bytes.length - 1] = (bytes[bytes.length - 1] ?? 0) ^ 1;
    writeFileSync(path, bytes);
    utimesSync(path, MTIME_S, MTIME_S);
    const after = await stat(path, { bigint: true });
    expect([after.size, after.mtimeNs, after.ino]).toEqual([
      before.size,
      before.mtimeNs,
      before.ino,
    ]);
    // The ctime moved: the pin is checked against the new bytes and refuses them.
    expect(
      await codeOf(prepareComponent({ componentPath: path, cacheDir, sha256: original.sha256 })),
    ).toBe(WasmErrorCode.WASM_DIGEST_MISMATCH);
  });

  it('ignores a record whose MAC is not this host key', async () => {
    const cacheDir = join(dir, 'cache-d');
    const mine = await prepareComponent({ componentPath, cacheDir });
    const other = await prepareComponent({ componentPath: otherPath, cacheDir });
    const [name] = recordsOf(cacheDir).filter((file) => {
      const record = JSON.parse(readFileSync(join(cacheDir, 'sources', file), 'utf8'));
      return record.path === componentPath;
    });
    const recordFile = join(cacheDir, 'sources', name as string);
    const record = JSON.parse(readFileSync(recordFile, 'utf8'));
    writeFileSync(recordFile, JSON.stringify({ ...record, sha256: other.sha256 }));
    expect((await prepareComponent({ componentPath, cacheDir })).sha256).toBe(mine.sha256);
  });

  it('judges a pin that disagrees with the record on the file itself', async () => {
    const cacheDir = join(dir, 'cache-e');
    const mine = await prepareComponent({ componentPath, cacheDir });
    const other = await prepareComponent({ componentPath: otherPath, cacheDir });
    const key = await loadCacheKey(cacheKeyPath(cacheDir));
    // A stale record (other digest) and a pin of the file's true digest: the file wins.
    await recordDigest(
      cacheDir,
      key,
      componentPath,
      await stat(componentPath, { bigint: true }),
      other.sha256,
    );
    const pinned = await prepareComponent({ componentPath, cacheDir, sha256: mine.sha256 });
    expect(pinned.sha256).toBe(mine.sha256);
    // And a pin equal to neither is refused, naming the file's digest.
    try {
      await prepareComponent({ componentPath, cacheDir, sha256: '0'.repeat(64) });
      expect.unreachable('a wrong pin was accepted');
    } catch (error) {
      expect(isWasmError(error) && error.code).toBe(WasmErrorCode.WASM_DIGEST_MISMATCH);
      expect((error as Error).message).toContain(mine.sha256);
    }
  });

  it('does not record a component written less than the quiescence time ago', async () => {
    const cacheDir = join(dir, 'cache-f');
    const fresh = join(dir, 'fresh.wasm');
    writeFileSync(fresh, readFileSync(componentPath));
    await prepareComponent({ componentPath: fresh, cacheDir });
    expect(recordsOf(cacheDir)).toEqual([]);
  });
});

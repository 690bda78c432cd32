/**
 * The secret that authenticates compiled-module cache manifests. It lives next to the cache
 * directory, never inside it (`<cache>.key`, 0600), so whoever can rewrite a cache entry (its glue
 * and its manifest together) still cannot forge the manifest's MAC: a forged entry is detected
 * and rebuilt from the component instead of being imported.
 * @module
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { mkdir, readFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { createFileAtomic, writeFileAtomic } from '@clat/node-files';

const KEY_BYTES = 32;

/** The key file of a cache directory: a sibling, outside the directory a guest might reach. */
export function cacheKeyPath(cacheDir: string): string {
  return `${cacheDir}.key`;
}

async function writeKey(path: string, replace: boolean): Promise<Buffer> {
  const key = randomBytes(KEY_BYTES);
  await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  // Through a temp file of its own (random name, no bytes of the key, created new: nothing planted
  // there is followed), 0600, not synced (a lost key only costs rebuilding the caches). Linked
  // into place, which fails with EEXIST when another process created the key first; renamed over
  // a malformed one.
  const options = { mode: 0o600, sync: false };
  if (replace) await writeFileAtomic(path, key, options);
  else await createFileAtomic(path, key, options);
  return key;
}

/** Reads the cache key, creating it (atomically, 0600) on first use or when it is malformed. */
export async function loadCacheKey(path: string): Promise<Buffer> {
  for (let attempt = 0; ; attempt++) {
    try {
      const key = await readFile(path);
      if (key.length === KEY_BYTES) return key;
      return await writeKey(path, true);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== 'ENOENT' || attempt > 0) throw error;
    }
    try {
      return await writeKey(path, false);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
  }
}

/** HMAC-SHA256 (hex) of a manifest's canonical fields. */
export function manifestMac(key: Buffer, fields: unknown): string {
  return createHmac('sha256', key).update(JSON.stringify(fields)).digest('hex');
}

/** Constant-time comparison of two hex MACs. */
export function macMatches(expected: string, actual: unknown): boolean {
  if (typeof actual !== 'string' || actual.length !== expected.length) return false;
  return timingSafeEqual(Buffer.from(expected), Buffer.from(actual));
}

import { watch } from 'node:fs';
import { mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cacheKeyPath, loadCacheKey } from './cache-key.js';

let dir = '';
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'clat-cache-key-'));
});
afterEach(() => rm(dir, { recursive: true, force: true }));

describe('loadCacheKey', () => {
  it('creates a 0600 key through a temporary file whose name holds no byte of the key', async () => {
    const names: string[] = [];
    const watcher = watch(dir, (_event, name) => {
      if (name !== null) names.push(name);
    });
    try {
      const path = cacheKeyPath(join(dir, 'cache'));
      const key = await loadCacheKey(path);
      // inotify reports asynchronously: give it a moment to deliver the temporary file's events.
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(key).toHaveLength(32);
      expect((await stat(path)).mode & 0o777).toBe(0o600);
      const temps = names.filter((name) => name.endsWith('.tmp'));
      expect(temps.length).toBeGreaterThan(0);
      for (const name of temps) expect(name).not.toContain(key.toString('hex', 0, 4));
      expect(await readdir(dir)).toEqual(['cache.key']);
    } finally {
      watcher.close();
    }
  });
});

import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fsyncDirectory } from './directory-sync.js';

let dir = '';
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'clat-directory-sync-'));
});
afterEach(() => rm(dir, { recursive: true, force: true }));

describe('fsyncDirectory', () => {
  it('syncs a directory and throws for one that is not there', async () => {
    await expect(fsyncDirectory(dir)).resolves.toBeUndefined();
    await expect(fsyncDirectory(join(dir, 'missing'))).rejects.toMatchObject({ code: 'ENOENT' });
  });
});

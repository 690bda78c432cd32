import { existsSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createFileAtomic } from './atomic-create.js';

let dir = '';
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'clat-atomic-create-'));
});
afterEach(() => rm(dir, { recursive: true, force: true }));

describe('createFileAtomic', () => {
  it('creates the file whole with its mode and leaves nothing else', async () => {
    await createFileAtomic(join(dir, 'lock'), '42:token', { mode: 0o600 });
    expect(await readFile(join(dir, 'lock'), 'utf8')).toBe('42:token');
    expect((await stat(join(dir, 'lock'))).mode & 0o777).toBe(0o600);
    expect(await readdir(dir)).toEqual(['lock']);
  });

  it('never replaces a file or a link that is there, and says so with EEXIST', async () => {
    await writeFile(join(dir, 'taken'), 'first');
    await symlink(join(dir, 'nowhere'), join(dir, 'dangling'));
    for (const name of ['taken', 'dangling']) {
      await expect(
        createFileAtomic(join(dir, name), 'second', { mode: 0o600 }),
      ).rejects.toMatchObject({ code: 'EEXIST', syscall: 'link' });
    }
    expect(await readFile(join(dir, 'taken'), 'utf8')).toBe('first');
    expect(existsSync(join(dir, 'nowhere'))).toBe(false);
    expect((await readdir(dir)).sort()).toEqual(['dangling', 'taken']);
  });

  it('creates nothing and removes its temporary file when the write fails', async () => {
    async function* failing(): AsyncGenerator<Uint8Array> {
      yield Buffer.from('half');
      throw new Error('no more');
    }
    await expect(createFileAtomic(join(dir, 'out'), failing(), { mode: 0o644 })).rejects.toThrow(
      'no more',
    );
    expect(await readdir(dir)).toEqual([]);
  });

  it('lets exactly one of racing creators win, with its whole content', async () => {
    const path = join(dir, 'key');
    const size = 64 * 1024;
    const results = await Promise.allSettled(
      Array.from({ length: 16 }, (_, i) =>
        createFileAtomic(path, Buffer.alloc(size, i), { mode: 0o600, sync: false }),
      ),
    );
    const won = results.flatMap((result, i) => (result.status === 'fulfilled' ? [i] : []));
    expect(won).toHaveLength(1);
    for (const result of results) {
      if (result.status === 'rejected') expect(result.reason).toMatchObject({ code: 'EEXIST' });
    }
    expect(await readFile(path)).toEqual(Buffer.alloc(size, won[0]));
    expect(await readdir(dir)).toEqual(['key']);
  });
});

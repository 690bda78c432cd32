import { mkdtemp, readdir, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { writeNewPrivateFile } from './private-temp-file.js';

let dir = '';
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'clat-private-temp-'));
});
afterEach(() => rm(dir, { recursive: true, force: true }));

describe('writeNewPrivateFile', () => {
  it('writes a new 0600 file', async () => {
    await writeNewPrivateFile(join(dir, 'a.tmp'), 'text');
    expect(await readFile(join(dir, 'a.tmp'), 'utf8')).toBe('text');
    expect((await stat(join(dir, 'a.tmp'))).mode & 0o777).toBe(0o600);
  });

  it('never writes through a file or link already there', async () => {
    await writeFile(join(dir, 'victim'), 'untouched');
    await symlink(join(dir, 'victim'), join(dir, 'b.tmp'));
    await expect(writeNewPrivateFile(join(dir, 'b.tmp'), 'secret')).rejects.toMatchObject({
      code: 'EEXIST',
    });
    expect(await readFile(join(dir, 'victim'), 'utf8')).toBe('untouched');
  });

  it('removes the partial file when the write fails', async () => {
    // Not writable content: the file exists by the time the write throws.
    await expect(
      writeNewPrivateFile(join(dir, 'c.tmp'), 42 as unknown as string),
    ).rejects.toThrow();
    expect(await readdir(dir)).toEqual([]);
  });
});

import { existsSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { writeNewFile } from './new-file.js';

let dir = '';
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'clat-new-file-'));
});
afterEach(() => rm(dir, { recursive: true, force: true }));

async function* chunks(...parts: string[]): AsyncGenerator<Uint8Array> {
  for (const part of parts) yield Buffer.from(part);
}

describe('writeNewFile', () => {
  it('creates a file with the mode asked for, from text, bytes or chunks', async () => {
    await writeNewFile(join(dir, 'text'), 'secret', { mode: 0o600 });
    await writeNewFile(join(dir, 'bytes'), Buffer.from('bytes'), { mode: 0o600, sync: false });
    await writeNewFile(join(dir, 'chunks'), chunks('one ', 'two'), { mode: 0o700 });
    expect(await readFile(join(dir, 'text'), 'utf8')).toBe('secret');
    expect(await readFile(join(dir, 'bytes'), 'utf8')).toBe('bytes');
    expect(await readFile(join(dir, 'chunks'), 'utf8')).toBe('one two');
    expect((await stat(join(dir, 'text'))).mode & 0o777).toBe(0o600);
    expect((await stat(join(dir, 'chunks'))).mode & 0o777).toBe(0o700);
  });

  it('never writes through a file or a link already there, dangling or not', async () => {
    const victim = join(dir, 'victim');
    await writeFile(victim, 'untouched');
    await symlink(victim, join(dir, 'link'));
    await symlink(join(dir, 'nowhere'), join(dir, 'dangling'));
    for (const name of ['victim', 'link', 'dangling']) {
      await expect(writeNewFile(join(dir, name), 'x', { mode: 0o600 })).rejects.toMatchObject({
        code: 'EEXIST',
      });
    }
    expect(await readFile(victim, 'utf8')).toBe('untouched');
    expect(existsSync(join(dir, 'nowhere'))).toBe(false);
  });

  it('removes the partial file and throws the error when the write fails', async () => {
    const failure = new Error('source went away');
    async function* failing(): AsyncGenerator<Uint8Array> {
      yield Buffer.from('half');
      throw failure;
    }
    await expect(writeNewFile(join(dir, 'partial'), failing(), { mode: 0o600 })).rejects.toBe(
      failure,
    );
    expect(await readdir(dir)).toEqual([]);
  });

  it('asks for chunks only once the file exists', async () => {
    const path = join(dir, 'late');
    let existed: boolean | undefined;
    async function* probe(): AsyncGenerator<Uint8Array> {
      existed = existsSync(path);
      yield Buffer.from('x');
    }
    await writeNewFile(path, probe(), { mode: 0o600 });
    expect(existed).toBe(true);
    existed = undefined;
    await expect(
      writeNewFile(join(dir, 'missing', 'x'), probe(), { mode: 0o600 }),
    ).rejects.toMatchObject({ code: 'ENOENT' });
    expect(existed).toBeUndefined();
  });
});

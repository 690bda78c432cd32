import { spawnSync } from 'node:child_process';
import {
  lstat,
  mkdir,
  mkdtemp,
  readdir,
  readFile,
  rm,
  stat,
  symlink,
  writeFile,
} from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { writeFileAtomic } from './atomic-write.js';

let dir = '';
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'clat-atomic-write-'));
});
afterEach(() => rm(dir, { recursive: true, force: true }));

describe('writeFileAtomic', () => {
  it('replaces a readable file with a private one and leaves nothing else', async () => {
    const path = join(dir, 'record.json');
    await writeFile(path, 'old', { mode: 0o644 });
    await writeFileAtomic(path, 'new', { mode: 0o600 });
    expect(await readFile(path, 'utf8')).toBe('new');
    expect((await stat(path)).mode & 0o777).toBe(0o600);
    expect(await readdir(dir)).toEqual(['record.json']);
  });

  it('applies an exact mode past the umask when asked (a replaced file keeps its mode)', async () => {
    const path = join(dir, 'script.sh');
    await writeFileAtomic(path, 'new', { mode: 0o666, exactMode: true });
    expect((await stat(path)).mode & 0o777).toBe(0o666);
  });

  it('replaces a link at the target instead of writing through it', async () => {
    const victim = join(dir, 'victim');
    await writeFile(victim, 'untouched');
    const path = join(dir, 'config.json');
    await symlink(victim, path);
    await writeFileAtomic(path, 'new', { mode: 0o600 });
    expect((await lstat(path)).isFile()).toBe(true);
    expect(await readFile(path, 'utf8')).toBe('new');
    expect(await readFile(victim, 'utf8')).toBe('untouched');
  });

  it('never writes through links planted at predictable temporary names', async () => {
    const victim = join(dir, 'victim');
    await writeFile(victim, 'untouched');
    const planted = [
      'config.json.tmp',
      `config.json.${process.pid}.tmp`,
      '.config.json.tmp',
      `.config.json.${process.pid}.tmp`,
    ];
    for (const name of planted) await symlink(victim, join(dir, name));
    await writeFileAtomic(join(dir, 'config.json'), 'secret', { mode: 0o600 });
    expect(await readFile(victim, 'utf8')).toBe('untouched');
    expect((await readdir(dir)).sort()).toEqual([...planted, 'config.json', 'victim'].sort());
  });

  it('removes its temporary file when the rename is refused', async () => {
    // A directory that is not empty where the file should go: the write works, the rename fails.
    const blocked = join(dir, 'blocked');
    await mkdir(blocked);
    await writeFile(join(blocked, 'inside'), 'kept');
    await expect(writeFileAtomic(blocked, 'x', { mode: 0o600 })).rejects.toMatchObject({
      syscall: 'rename',
    });
    expect(await readdir(dir)).toEqual(['blocked']);
    expect(await readFile(join(blocked, 'inside'), 'utf8')).toBe('kept');
  });

  it('keeps the old file and removes its temporary file when the write fails', async () => {
    const path = join(dir, 'record.json');
    await writeFile(path, 'old');
    async function* failing(): AsyncGenerator<Uint8Array> {
      yield Buffer.from('half');
      throw new Error('no more');
    }
    await expect(writeFileAtomic(path, failing(), { mode: 0o600 })).rejects.toThrow('no more');
    expect(await readFile(path, 'utf8')).toBe('old');
    expect(await readdir(dir)).toEqual(['record.json']);
  });

  it('throws and leaves nothing when the directory is gone', async () => {
    const gone = join(dir, 'gone');
    await mkdir(gone);
    async function* removing(): AsyncGenerator<Uint8Array> {
      yield Buffer.from('half');
      await rm(gone, { recursive: true });
      yield Buffer.from('rest');
    }
    await expect(
      writeFileAtomic(join(gone, 'record.json'), removing(), { mode: 0o600 }),
    ).rejects.toMatchObject({ code: 'ENOENT' });
    expect(await readdir(dir)).toEqual([]);
  });

  it('leaves one whole file when writers race', async () => {
    const path = join(dir, 'shared.bin');
    const size = 256 * 1024;
    const writers = Array.from({ length: 16 }, (_, i) =>
      writeFileAtomic(path, Buffer.alloc(size, i), { mode: 0o600 }),
    );
    await Promise.all(writers);
    const content = await readFile(path);
    expect(content.length).toBe(size);
    expect(content.every((byte) => byte === content[0])).toBe(true);
    expect(await readdir(dir)).toEqual(['shared.bin']);
  });

  it('removes the temporary copies killed writers left, and only those', async () => {
    const path = join(dir, 'mcp.json');
    // A process that has exited: its pid runs nothing now.
    const dead = spawnSync(process.execPath, ['-e', '0']).pid;
    const left = `.mcp.json.${dead}.0123456789abcdef.tmp`;
    const live = `.mcp.json.${process.ppid}.0123456789abcdef.tmp`;
    const own = `.mcp.json.${process.pid}.0123456789abcdef.tmp`;
    const other = `.trust.json.${dead}.0123456789abcdef.tmp`;
    for (const name of [left, live, own, other]) await writeFile(join(dir, name), '{"key":"x"}');
    await writeFileAtomic(path, '{}', { mode: 0o600 });
    expect((await readdir(dir)).sort()).toEqual([live, own, other, 'mcp.json'].sort());
  });
});

import { chmod, mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { writeFileAtomic } from './atomic-write.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'clat-atomic-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('writeFileAtomic', () => {
  it('creates files and directories with the requested modes and leaves no temp file', async () => {
    const file = join(dir, 'nested', 'secret.json');
    const { created } = await writeFileAtomic(file, '{}', { newFileMode: 0o600, dirMode: 0o700 });
    expect(created).toBe(true);
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect((await stat(join(dir, 'nested'))).mode & 0o777).toBe(0o700);
    expect(await readdir(join(dir, 'nested'))).toEqual(['secret.json']);
  });

  it('keeps the mode of an existing file over the requested new-file mode', async () => {
    const file = join(dir, 'script.sh');
    await writeFileAtomic(file, 'old');
    await chmod(file, 0o750);
    const { created } = await writeFileAtomic(file, 'new', { newFileMode: 0o600 });
    expect(created).toBe(false);
    expect((await stat(file)).mode & 0o777).toBe(0o750);
    expect(await readFile(file, 'utf8')).toBe('new');
  });

  it('forces `mode` on an existing file (secret-holding files stay 0600)', async () => {
    const file = join(dir, 'mcp.json');
    await writeFileAtomic(file, 'old');
    await chmod(file, 0o644);
    await writeFileAtomic(file, 'new', { mode: 0o600 });
    expect((await stat(file)).mode & 0o777).toBe(0o600);
  });
});

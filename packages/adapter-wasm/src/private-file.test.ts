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
import { replacePrivateFile } from './private-file.js';

let dir = '';
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'clat-private-file-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('replacePrivateFile', () => {
  it('replaces a file with one only its owner can read, and leaves nothing else', async () => {
    const path = join(dir, 'record.json');
    writeFileSync(path, 'old', { mode: 0o644 });
    await replacePrivateFile(path, 'new');
    expect(readFileSync(path, 'utf8')).toBe('new');
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(readdirSync(dir)).toEqual(['record.json']);
  });

  it('throws when the rename is refused, and removes its temporary file', async () => {
    // A directory that is not empty where the file should go: the write works, the rename fails.
    const blocked = join(dir, 'blocked');
    mkdirSync(blocked);
    writeFileSync(join(blocked, 'inside'), 'kept');
    await expect(replacePrivateFile(blocked, 'x')).rejects.toThrow();
    expect(readdirSync(dir)).toEqual(['blocked']);
    expect(readFileSync(join(blocked, 'inside'), 'utf8')).toBe('kept');
  });
});

describe('replacePrivateFile when the write fails', () => {
  it('removes the temporary file it created', async () => {
    const path = join(dir, 'record.json');
    writeFileSync(path, 'old');
    // Not writable content: the temporary file exists by the time the write throws.
    await expect(replacePrivateFile(path, 42 as unknown as string)).rejects.toThrow();
    expect(readdirSync(dir)).toEqual(['record.json']);
    expect(readFileSync(path, 'utf8')).toBe('old');
  });
});

import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadMcpConfig } from './mcp-config-file.js';
import { readSmallFile, SMALL_FILE_MAX_BYTES } from './read-small-file.js';
import { loadUserConfig } from './user-config.js';

let dir = '';
afterEach(() => {
  if (dir !== '') rmSync(dir, { recursive: true, force: true });
  dir = '';
});

function tempDir(): string {
  dir = mkdtempSync(join(tmpdir(), 'clat-small-file-'));
  return dir;
}

describe('readSmallFile', () => {
  it('returns the text, undefined for a missing file, and throws anything else as it is', () => {
    const root = tempDir();
    writeFileSync(join(root, 'a.json'), '{"x":1}\n');
    expect(readSmallFile(join(root, 'a.json'))).toBe('{"x":1}\n');
    expect(readSmallFile(join(root, 'missing.json'))).toBeUndefined();
    mkdirSync(join(root, 'dir.json'));
    expect(() => readSmallFile(join(root, 'dir.json'))).toThrow(
      expect.objectContaining({ code: 'EISDIR' }),
    );
  });

  it('refuses a FIFO without waiting for a writer, and a file over the limit', () => {
    const root = tempDir();
    const fifo = join(root, 'mcp.json');
    if (spawnSync('mkfifo', [fifo]).status === 0) {
      expect(() => readSmallFile(fifo)).toThrow('it is a FIFO, not a regular file');
    }
    const big = join(root, 'big.json');
    writeFileSync(big, '');
    truncateSync(big, SMALL_FILE_MAX_BYTES + 1);
    expect(() => readSmallFile(big)).toThrow(
      'it holds 8.0 MiB, over the 8 MiB CLAT reads from a settings file',
    );
  });

  it('keeps what the loaders answer: a missing file is empty, an unreadable one is named', async () => {
    const root = tempDir();
    expect(await loadUserConfig(join(root, 'config.json'), {})).toEqual({
      file: join(root, 'config.json'),
      provider: undefined,
      mode: undefined,
      issues: [],
      modelIssues: [],
      modeUnknown: false,
    });
    mkdirSync(join(root, 'config.json'));
    await expect(loadUserConfig(join(root, 'config.json'), {})).rejects.toThrow(
      `${join(root, 'config.json')}: cannot be read`,
    );
    mkdirSync(join(root, 'mcp.json'));
    await expect(loadMcpConfig(join(root, 'mcp.json'))).rejects.toThrow(
      `${join(root, 'mcp.json')}: cannot be read`,
    );
  });
});

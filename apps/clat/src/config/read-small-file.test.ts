import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { EraStore } from './era-store.js';
import { loadMcpConfig } from './mcp-config-file.js';
import { readSmallFile } from './read-small-file.js';
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

  it('keeps what the loaders answer: a missing file is empty, an unreadable one is named', async () => {
    const root = tempDir();
    expect(await loadUserConfig(join(root, 'config.json'), {})).toEqual({
      file: join(root, 'config.json'),
      provider: undefined,
      mode: undefined,
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

describe('EraStore', () => {
  it('reads remembered legacy eras once, and a missing, broken or unreadable file as none', async () => {
    const root = tempDir();
    const file = join(root, 'mcp-eras.json');
    expect(await new EraStore(file).hint({ name: 's' })).toBeUndefined();
    const remembered = new EraStore(file);
    await remembered.record({ name: 's' }, 'legacy', '1.0.0', false);
    expect(await new EraStore(file).hint({ name: 's' })).toBe('legacy');
    // Read when constructed: a later change to the file is not seen by this store.
    const early = new EraStore(file);
    writeFileSync(file, '{ broken');
    expect(await early.hint({ name: 's' })).toBe('legacy');
    expect(await new EraStore(file).hint({ name: 's' })).toBeUndefined();
    rmSync(file);
    mkdirSync(file);
    expect(await new EraStore(file).hint({ name: 's' })).toBeUndefined();
  });
});

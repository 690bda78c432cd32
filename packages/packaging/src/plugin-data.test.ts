import { existsSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ensurePluginDataDir, removePluginData } from './plugin-data.js';

let home: string;

beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), 'clat-plugin-data-'));
});
afterEach(async () => {
  await rm(home, { recursive: true, force: true });
});

describe('removePluginData', () => {
  it('removes a data directory with read-only contents, and says when there was none', async () => {
    const data = await ensurePluginDataDir(home, 'notes');
    await mkdir(join(data, 'repaired-1-active'));
    await writeFile(join(data, 'repaired-1-active', 'memory.jsonl'), '{}');
    await chmod(join(data, 'repaired-1-active', 'memory.jsonl'), 0o400);
    await chmod(join(data, 'repaired-1-active'), 0o500);
    expect(await removePluginData(home, 'notes')).toBe(true);
    expect(existsSync(data)).toBe(false);
    expect(await removePluginData(home, 'notes')).toBe(false);
  });

  it('touches nothing for an id that is a path', async () => {
    await ensurePluginDataDir(home, 'notes');
    await writeFile(join(home, 'mcp.json'), '{}');
    for (const id of ['..', '.', '../plugin-data', 'notes/..', '', 'Notes']) {
      expect(await removePluginData(home, id), id).toBe(false);
    }
    expect(existsSync(join(home, 'mcp.json'))).toBe(true);
    expect(existsSync(join(home, 'plugin-data', 'notes'))).toBe(true);
  });
});

import { mkdtemp, readFile, rm, symlink, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { editConfigFile } from './config-lock.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'clat-config-lock-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('editConfigFile', () => {
  it('writes nothing when its lock was replaced while the edit ran', async () => {
    const file = join(dir, 'mcp.json');
    await writeFile(file, '{"mcpServers":{"base":{}}}\n');
    await expect(
      editConfigFile(file, async (commit) => {
        // A lock file removed by hand, and another process's lock and change in its place.
        await writeFile(`${file}.lock`, `999999:${'0'.repeat(36)}`);
        await writeFile(file, '{"mcpServers":{"base":{},"second":{}}}\n');
        await commit('{"mcpServers":{"base":{},"first":{}}}\n');
      }),
    ).rejects.toMatchObject({
      code: 'CLI_CONFIG_BUSY',
      message: `${file}: its lock ${file}.lock was removed or replaced while this edit ran, so another process may have changed the file; nothing was written, run the command again`,
    });
    expect(await readFile(file, 'utf8')).toBe('{"mcpServers":{"base":{},"second":{}}}\n');
  });

  it('commits while it holds the lock, and releases it', async () => {
    const file = join(dir, 'trust.json');
    await editConfigFile(file, (commit) => commit('{}\n'));
    expect(await readFile(file, 'utf8')).toBe('{}\n');
    await expect(readFile(`${file}.lock`)).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('writes the linked file it locked, even when the link is re-pointed during the edit', async () => {
    const first = join(dir, 'first.json');
    const second = join(dir, 'second.json');
    const link = join(dir, 'mcp.json');
    await writeFile(first, '{}\n');
    await writeFile(second, '{}\n');
    await symlink(first, link);
    await editConfigFile(link, async (commit) => {
      // Another program re-points the link; the lock this edit holds is first.json's.
      await unlink(link);
      await symlink(second, link);
      await commit('{"edited":true}\n');
    });
    expect(await readFile(first, 'utf8')).toBe('{"edited":true}\n');
    expect(await readFile(second, 'utf8')).toBe('{}\n');
  });
});

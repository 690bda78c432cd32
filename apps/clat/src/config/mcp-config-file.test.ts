import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadMcpConfig, putServerEntry, removeServerEntry } from './mcp-config-file.js';

let dir: string;
let file: string;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'clat-mcp-config-'));
  file = join(dir, 'mcp.json');
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('mcp.json edits', () => {
  it('creates a 0600 file with the wrapper shape', async () => {
    await putServerEntry(file, 'a', { command: 'node', args: ['a.js'] });
    expect(JSON.parse(await readFile(file, 'utf8'))).toEqual({
      mcpServers: { a: { command: 'node', args: ['a.js'] } },
    });
    const { stat } = await import('node:fs/promises');
    expect((await stat(file)).mode & 0o777).toBe(0o600);
  });

  it('keeps a bare map bare and unknown top-level keys in place', async () => {
    await writeFile(file, JSON.stringify({ a: { command: 'x' }, b: { url: 'https://e.com' } }));
    await putServerEntry(file, 'c', { url: 'http://127.0.0.1:1/mcp' });
    await removeServerEntry(file, 'a');
    expect(JSON.parse(await readFile(file, 'utf8'))).toEqual({
      b: { url: 'https://e.com' },
      c: { url: 'http://127.0.0.1:1/mcp' },
    });
    expect((await readdir(dir)).sort()).toEqual(['mcp.json']);
  });

  it('validates before writing and names the field', async () => {
    await writeFile(file, '{"a":{"command":"x"}}');
    await expect(putServerEntry(file, 'b', { command: 'x', cwd: '' })).rejects.toThrow(
      /mcp\.json: b\.cwd: /,
    );
    await expect(putServerEntry(file, 'a', { command: 'y' })).rejects.toThrow(/already exists/);
    await putServerEntry(file, 'a', { command: 'y' }, { replace: true });
    expect(JSON.parse(await readFile(file, 'utf8'))).toEqual({ a: { command: 'y' } });
  });

  it('loads per entry: bad entries are issues, good ones still load', async () => {
    await writeFile(
      file,
      JSON.stringify({ mcpServers: { good: { command: 'x' }, bad: { command: 'x', url: 'y' } } }),
    );
    const loaded = await loadMcpConfig(file);
    expect(loaded.servers.map((server) => server.name)).toEqual(['good']);
    expect(loaded.issues).toEqual([
      {
        file,
        path: 'bad',
        message: 'entry has both "command" and "url"; choose exactly one transport',
      },
    ]);
    expect(await loadMcpConfig(join(dir, 'missing.json'))).toMatchObject({
      exists: false,
      servers: [],
      issues: [],
    });
  });
});

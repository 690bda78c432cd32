import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { configDigest, FileEraMemory } from './era-file.js';

let dir = '';
afterEach(() => {
  if (dir !== '') rmSync(dir, { recursive: true, force: true });
  dir = '';
});

function tempDir(): string {
  dir = mkdtempSync(join(tmpdir(), 'clat-era-file-'));
  return dir;
}

describe('FileEraMemory', () => {
  it('reads remembered legacy eras once, and a missing, broken or unreadable file as none', async () => {
    const root = tempDir();
    const file = join(root, 'home', 'mcp-eras.json');
    expect(await new FileEraMemory(file).hint({ name: 's' })).toBeUndefined();
    const remembered = new FileEraMemory(file);
    await remembered.record({ name: 's' }, 'legacy', '1.0.0', false);
    // The missing home directory was created owner-only, the file 0600.
    expect(statSync(join(root, 'home')).mode & 0o777).toBe(0o700);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(await new FileEraMemory(file).hint({ name: 's' })).toBe('legacy');
    // Read when constructed: a later change to the file is not seen by this memory.
    const early = new FileEraMemory(file);
    writeFileSync(file, '{ broken');
    expect(await early.hint({ name: 's' })).toBe('legacy');
    expect(await new FileEraMemory(file).hint({ name: 's' })).toBeUndefined();
    rmSync(file);
    mkdirSync(file);
    expect(await new FileEraMemory(file).hint({ name: 's' })).toBeUndefined();
  });

  it('forgets an entry that turned modern or reports another version after a hinted connect', async () => {
    const file = join(tempDir(), 'mcp-eras.json');
    const memory = new FileEraMemory(file);
    await memory.record({ name: 'a' }, 'legacy', '1.0.0', false);
    await memory.record({ name: 'b' }, 'legacy', '2.0.0', false);
    await memory.record({ name: 'a' }, '2026-07-28', '1.1.0', false);
    await memory.record({ name: 'b' }, 'legacy', '2.1.0', true);
    const fresh = new FileEraMemory(file);
    expect(await fresh.hint({ name: 'a' })).toBeUndefined();
    expect(await fresh.hint({ name: 'b' })).toBeUndefined();
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({ version: 1, servers: {} });
  });

  it('keeps the records other processes wrote since it read the file', async () => {
    const file = join(tempDir(), 'mcp-eras.json');
    // Two processes start, each reading the (empty) file, then each records its own server.
    const first = new FileEraMemory(file);
    const second = new FileEraMemory(file);
    await first.hint({ name: 'a' });
    await second.hint({ name: 'b' });
    await first.record({ name: 'a' }, 'legacy', '1.0.0', false);
    await second.record({ name: 'b' }, 'legacy', '1.0.0', false);
    await first.record({ name: 'c' }, 'legacy', '1.0.0', false);
    const fresh = new FileEraMemory(file);
    for (const name of ['a', 'b', 'c']) expect(await fresh.hint({ name })).toBe('legacy');
    // A forget removes only its own record.
    await second.record({ name: 'b' }, '2026-07-28', '1.1.0', false);
    const after = new FileEraMemory(file);
    expect(await after.hint({ name: 'a' })).toBe('legacy');
    expect(await after.hint({ name: 'b' })).toBeUndefined();
  });
});

describe('configDigest', () => {
  it('keys by what answers, with env and header names only, never values or origin', () => {
    const base: { name: string } = {
      name: 's',
      command: 'node',
      args: ['a.js'],
      env: { TOKEN: 'one' },
    } as {
      name: string;
    };
    expect(configDigest({ ...base, env: { TOKEN: 'two' }, origin: 'project' } as never)).toBe(
      configDigest(base),
    );
    expect(configDigest({ ...base, args: ['b.js'] } as { name: string })).not.toBe(
      configDigest(base),
    );
    expect(configDigest(base)).toMatch(/^sha256:[0-9a-f]{64}$/);
  });
});

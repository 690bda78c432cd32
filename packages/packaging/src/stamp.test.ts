import { createHash } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { inspectPackage } from './inspect.js';
import { SIGNATURE_FILE } from './signature.js';
import { stampEntryDigest } from './stamp.js';

let dir: string;
const COMPONENT = Buffer.from([0x00, 0x61, 0x73, 0x6d, 0x0d, 0x00, 0x01, 0x00, 0x2a]);
const sha = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');
const manifest = (runtime: Record<string, unknown>) => ({
  manifestVersion: 1,
  id: 'demo',
  name: 'Demo',
  version: '1.0.0',
  runtime: { kind: 'wasm-component', entry: 'plugin.wasm', ...runtime },
  capabilities: { tools: true },
});

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'clat-stamp-'));
  await writeFile(join(dir, 'plugin.wasm'), COMPONENT);
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('stampEntryDigest', () => {
  it('writes the computed digest into a manifest without one, and the package then inspects', async () => {
    await writeFile(join(dir, 'clat-plugin.json'), JSON.stringify(manifest({})));
    const result = await stampEntryDigest(dir);
    expect(result).toMatchObject({ entry: 'plugin.wasm', sha256: sha(COMPONENT), changed: true });
    const written = JSON.parse(await readFile(join(dir, 'clat-plugin.json'), 'utf8'));
    expect(written.runtime.sha256).toBe(sha(COMPONENT));
    expect((await inspectPackage(dir)).manifest.runtime.sha256).toBe(sha(COMPONENT));
  });

  it('never writes through a link planted where a predictable temp name would be', async () => {
    await writeFile(join(dir, 'clat-plugin.json'), JSON.stringify(manifest({})));
    const victim = join(dir, 'victim.txt');
    await writeFile(victim, 'untouched\n');
    await symlink(victim, join(dir, `clat-plugin.json.${process.pid}.tmp`));
    await stampEntryDigest(dir);
    expect(await readFile(victim, 'utf8')).toBe('untouched\n');
    expect((await readdir(dir)).filter((name) => name.endsWith('.tmp'))).toEqual([
      `clat-plugin.json.${process.pid}.tmp`,
    ]);
  });

  it('replaces a stale digest after a rebuild, and leaves a current one alone', async () => {
    await writeFile(
      join(dir, 'clat-plugin.json'),
      JSON.stringify(manifest({ sha256: 'a'.repeat(64) })),
    );
    expect((await stampEntryDigest(dir)).changed).toBe(true);
    const before = await readFile(join(dir, 'clat-plugin.json'), 'utf8');
    expect((await stampEntryDigest(dir)).changed).toBe(false);
    expect(await readFile(join(dir, 'clat-plugin.json'), 'utf8')).toBe(before);
  });

  it('names the missing entry, the bad field, and refuses to break a signature', async () => {
    await writeFile(
      join(dir, 'clat-plugin.json'),
      JSON.stringify(manifest({ entry: 'dist/x.wasm' })),
    );
    await expect(stampEntryDigest(dir)).rejects.toMatchObject({
      code: 'ENTRY_INVALID',
      // The package's top-level candidates are named: the entry may be misnamed, not unbuilt.
      message: expect.stringContaining(
        'runtime.entry "dist/x.wasm" does not exist (the package has "plugin.wasm"); build the plugin first, or correct the name',
      ),
    });
    await writeFile(
      join(dir, 'clat-plugin.json'),
      JSON.stringify({ ...manifest({}), id: 'Bad Id' }),
    );
    await expect(stampEntryDigest(dir)).rejects.toMatchObject({
      code: 'MANIFEST_INVALID',
      message: expect.stringContaining('id: must match'),
    });
    await writeFile(
      join(dir, 'clat-plugin.json'),
      JSON.stringify(manifest({ entry: '../x.wasm' })),
    );
    await expect(stampEntryDigest(dir)).rejects.toMatchObject({ code: 'MANIFEST_INVALID' });
    await writeFile(join(dir, 'clat-plugin.json'), JSON.stringify(manifest({})));
    await writeFile(join(dir, SIGNATURE_FILE), 'untrusted comment\n');
    await expect(stampEntryDigest(dir)).rejects.toMatchObject({ code: 'SIGNATURE_INVALID' });
  });
});

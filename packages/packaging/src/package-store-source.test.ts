import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { packageStoreSource } from './package-store-source.js';
import { PluginStore } from './plugin-store.js';
import { writeFixturePackage } from './test-fixtures.js';

let work: string;
let home: string;
beforeEach(async () => {
  work = await mkdtemp(join(tmpdir(), 'store-source-'));
  home = join(work, 'home');
});
afterEach(async () => {
  execFileSync('chmod', ['-R', 'u+rwX', work]);
  await rm(work, { recursive: true, force: true });
});

/** A `wasm-component` package: only the component header, which install accepts. */
async function writeComponentPackage(
  dir: string,
  id: string,
  extra: Record<string, unknown> = {},
): Promise<void> {
  const bytes = Buffer.from([0x00, 0x61, 0x73, 0x6d, 0x0d, 0x00, 0x01, 0x00]);
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, 'plugin.wasm'), bytes);
  await writeFile(
    join(dir, 'clat-plugin.json'),
    JSON.stringify({
      manifestVersion: 1,
      id,
      name: 'Component',
      version: '1.0.0',
      runtime: {
        kind: 'wasm-component',
        entry: 'plugin.wasm',
        sha256: createHash('sha256').update(bytes).digest('hex'),
      },
      capabilities: { tools: true, prompts: true },
      prompts: [{ name: 'how-to', system: 'Use the component.' }],
      ...extra,
    }),
  );
}

const collect = () => packageStoreSource({ clatHome: home }).collect({ taken: new Set() });

describe('packageStoreSource', () => {
  it('hands a component its sensitive values back from 0600 storage, naming the keys to redact', async () => {
    const store = new PluginStore({ clatHome: home });
    await writeComponentPackage(join(work, 'keyed'), 'keyed', {
      userConfig: {
        license: { type: 'string', title: 'License', sensitive: true, required: true },
        model: { type: 'string', title: 'Model', default: 'gpt-4o' },
      },
    });
    await store.install(join(work, 'keyed'), {
      yes: true,
      acceptCapabilities: true,
      configValues: { license: 'zebra-umbrella-4471', model: 'gpt-4o' },
    });
    expect(await readFile(store.registryFile, 'utf8')).not.toContain('zebra-umbrella-4471');
    const out = await collect();
    expect(out.issues).toEqual([]);
    expect(out.entries[0]?.config).toMatchObject({
      config: { license: 'zebra-umbrella-4471', model: 'gpt-4o' },
      sensitive: ['license'],
    });
  });

  it('lists installed servers and components with their prompts, stray files as notes', async () => {
    const store = new PluginStore({ clatHome: home });
    await writeFixturePackage(join(work, 'echo'), {
      id: 'echo',
      capabilities: { tools: true, prompts: true },
      manifest: { prompts: [{ name: 'usage', system: 'Use echo.' }] },
    });
    const echo = await store.install(join(work, 'echo'), { acceptCapabilities: true });
    await writeComponentPackage(join(work, 'comp'), 'comp');
    const comp = await store.install(join(work, 'comp'), {
      acceptCapabilities: true,
      config: { level: 2 },
    });
    await writeFile(join(store.artifactDir('echo', echo.treeSha256), 'state.json'), '{}');

    const source = packageStoreSource({ clatHome: home });
    expect(source.label).toBe('installed package');
    const out = await source.collect({ taken: new Set() });
    expect(out.issues).toEqual([]);
    expect(out.entries.map((entry) => [entry.kind, entry.name, entry.origin])).toEqual([
      ['mcp', 'echo', 'package'],
      ['wasm', 'comp', 'package'],
    ]);
    expect(out.entries[0]?.config).toMatchObject({
      transport: 'stdio',
      cwd: store.artifactDir('echo', echo.treeSha256),
    });
    expect(out.entries[1]?.config).toEqual({
      manifest: store.artifactDir('comp', comp.treeSha256),
      dirs: [],
      sensitive: [],
      config: { level: 2 },
    });
    expect(out.prompts).toEqual([
      { name: 'package_echo_usage', source: { kind: 'package', id: 'echo' }, text: 'Use echo.' },
      {
        name: 'package_comp_how_to',
        source: { kind: 'package', id: 'comp' },
        text: 'Use the component.',
      },
    ]);
    expect(out.notes).toEqual([
      'echo wrote 1 file(s) into its installed directory (state.json); its shipped files are intact; "clat plugin repair echo" moves them to its data directory',
    ]);
  });

  it('names registry.json in the issue of a damaged package and of a malformed registry', async () => {
    const store = new PluginStore({ clatHome: home });
    await writeFixturePackage(join(work, 'a'), { id: 'alpha' });
    await writeFixturePackage(join(work, 'b'), { id: 'beta' });
    const alpha = await store.install(join(work, 'a'), { acceptCapabilities: true });
    await store.install(join(work, 'b'), { acceptCapabilities: true });
    const entry = join(store.artifactDir('alpha', alpha.treeSha256), 'bin', 'server.mjs');
    await chmod(entry, 0o700);
    await writeFile(entry, '#!/bin/sh\necho pwned\n');

    const damaged = await collect();
    expect(damaged.entries.map((e) => e.name)).toEqual(['beta']);
    expect(damaged.issues).toEqual([
      {
        file: store.registryFile,
        path: 'alpha',
        message:
          'bin/server.mjs of installed package alpha was changed; run "clat plugin repair alpha"',
      },
    ]);

    await writeFile(store.registryFile, '[]');
    const closed = await collect();
    expect(closed.entries).toEqual([]);
    expect(closed.issues).toHaveLength(1);
    expect(closed.issues[0]).toMatchObject({ file: store.registryFile, path: '(root)' });
    expect(closed.issues[0]?.message).toContain('registry.json is malformed');
  });

  it('contributes nothing for a fresh CLAT home', async () => {
    expect(await collect()).toEqual({ entries: [], issues: [], notes: [], prompts: [] });
  });
});

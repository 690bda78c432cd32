/**
 * A real jco-built WASM component (the wasm-summarize example) as an installable
 * `wasm-component` package: installed, returned as a verified component entry, and refused once
 * its installed bytes change.
 */
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { chmod, copyFile, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { installedServerEntries, PluginStore } from '@clat/packaging';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));
const COMPONENT = join(REPO_ROOT, 'plugins/wasm-summarize/dist/plugin.wasm');

let work: string;

beforeAll(async () => {
  if (!existsSync(COMPONENT)) {
    throw new Error(`${COMPONENT} is missing; run "pnpm build" before the e2e tests`);
  }
  work = await mkdtemp(join(tmpdir(), 'clat-wasm-package-'));
});
afterAll(async () => {
  const { execFileSync } = await import('node:child_process');
  execFileSync('chmod', ['-R', 'u+rwX', work]);
  await rm(work, { recursive: true, force: true });
});

describe('wasm-component package', () => {
  it('installs a jco-built component and hands the verified entry to the WASM runtime', async () => {
    const dir = join(work, 'package');
    await mkdir(join(dir, 'dist'), { recursive: true });
    await copyFile(COMPONENT, join(dir, 'dist', 'plugin.wasm'));
    const bytes = await readFile(COMPONENT);
    await writeFile(
      join(dir, 'clat-plugin.json'),
      JSON.stringify({
        manifestVersion: 1,
        id: 'wasm-summarize',
        name: 'Summarize (WASM example)',
        version: '0.1.0',
        runtime: {
          kind: 'wasm-component',
          entry: 'dist/plugin.wasm',
          sha256: `sha256:${createHash('sha256').update(bytes).digest('hex').toUpperCase()}`,
        },
        capabilities: { tools: true, sampling: true, hostContext: true, hostTools: ['read_file'] },
      }),
    );
    const home = join(work, 'home');
    const store = new PluginStore({ clatHome: home });
    await expect(store.install(dir)).rejects.toMatchObject({
      code: 'CAPABILITY_EXPANSION',
      message: expect.stringContaining('tools, sampling, hostContext, hostTools.read_file'),
    });
    const { treeSha256, granted } = await store.install(dir, { acceptCapabilities: true });
    expect(granted).toEqual(['tools', 'sampling', 'hostContext', 'hostTools.read_file']);

    const entries = await installedServerEntries(home);
    expect(entries.servers).toEqual([]);
    const artifact = store.artifactDir('wasm-summarize', treeSha256);
    expect(entries.components).toEqual([
      {
        id: 'wasm-summarize',
        version: '0.1.0',
        dir: artifact,
        entry: join(artifact, 'dist', 'plugin.wasm'),
      },
    ]);
    // The component the runtime would load is byte-identical to the one that was built.
    expect((await readFile(join(artifact, 'dist', 'plugin.wasm'))).equals(bytes)).toBe(true);

    const installed = join(artifact, 'dist', 'plugin.wasm');
    await chmod(installed, 0o600);
    const flipped = Buffer.from(bytes);
    flipped[flipped.length - 1] = (flipped[flipped.length - 1] as number) ^ 0x01;
    await writeFile(installed, flipped);
    const tampered = await installedServerEntries(home);
    expect(tampered.components).toEqual([]);
    expect(tampered.issues[0]?.message).toContain('installed package wasm-summarize is damaged');
  });
});

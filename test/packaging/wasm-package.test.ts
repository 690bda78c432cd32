/**
 * A real jco-built WASM component (the wasm-summarize example) as an installable
 * `wasm-component` package: installed, returned as a verified component entry, and refused once
 * its installed bytes change; and the package `pnpm build` produces, installed and called through
 * the real `clat` binary.
 */
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { chmod, copyFile, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { prepareComponent, wasmCacheDir } from '@clat/adapter-wasm';
import { installedServerEntries, PluginStore } from '@clat/packaging';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CliSandbox, parseJsonOutput } from '../cli/support.js';

const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));
const COMPONENT = join(REPO_ROOT, 'plugins/wasm-summarize/dist/plugin.wasm');
/** The installable package directory `pnpm build` writes (component + manifest with its digest). */
const PACKAGE_DIR = join(REPO_ROOT, 'plugins/wasm-summarize/dist');
const CLAT_MAIN = join(REPO_ROOT, 'apps/clat/dist/main.js');

let work: string;

beforeAll(async () => {
  for (const file of [COMPONENT, join(PACKAGE_DIR, 'clat-plugin.json'), CLAT_MAIN]) {
    if (!existsSync(file))
      throw new Error(`${file} is missing; run "pnpm build" before the e2e tests`);
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
        sensitive: [],
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
    expect(tampered.issues[0]?.message).toBe(
      'dist/plugin.wasm of installed package wasm-summarize was changed; run "clat plugin repair wasm-summarize"',
    );
  });

  it('installs the built package with the clat binary and calls its tools', async () => {
    const sandbox = new CliSandbox();
    await sandbox.setup();
    try {
      const manifest = JSON.parse(await readFile(join(PACKAGE_DIR, 'clat-plugin.json'), 'utf8'));
      expect(manifest.runtime).toEqual({
        kind: 'wasm-component',
        entry: 'plugin.wasm',
        sha256: createHash('sha256')
          .update(await readFile(COMPONENT))
          .digest('hex'),
      });

      const inspected = await sandbox.run(['plugin', 'inspect', PACKAGE_DIR]);
      expect(inspected.code, inspected.stderr).toBe(0);
      expect(inspected.stdout).toMatch(/runtime +wasm-component/);

      const refused = await sandbox.run(['plugin', 'install', PACKAGE_DIR]);
      expect(refused.code).not.toBe(0);
      expect(refused.stderr).toContain('hostTools.read_file');
      const installed = await sandbox.run([
        'plugin',
        'install',
        PACKAGE_DIR,
        '--accept-capabilities',
      ]);
      expect(installed.code, installed.stderr).toBe(0);
      const listed = parseJsonOutput<{ id: string; runtime: string }[]>(
        await sandbox.run(['plugin', 'list', '--json']),
      );
      expect(listed).toEqual([
        expect.objectContaining({ id: 'wasm-summarize', runtime: 'wasm-component' }),
      ]);

      // Warm the jco transpile cache: the first run waits for the surface only so long.
      await prepareComponent({ componentPath: COMPONENT, cacheDir: wasmCacheDir(sandbox.home) });
      expect((await sandbox.run(['trust'])).code).toBe(0);
      const status = parseJsonOutput<{
        servers: {
          name: string;
          origin: string;
          transport: string;
          state: string;
          tools: number;
        }[];
      }>(await sandbox.run(['mcp', '--json']));
      expect(status.servers).toEqual([
        expect.objectContaining({
          name: 'wasm-summarize',
          origin: 'package',
          transport: 'wasm',
          state: 'connected',
          tools: 3,
        }),
      ]);
      const counted = await sandbox.run([
        'call',
        'wasm_wasm_summarize_word_count',
        JSON.stringify({ text: 'installed and called' }),
      ]);
      expect(counted.code, counted.stderr).toBe(0);
      expect(JSON.parse(counted.stdout)).toEqual({ words: 3 });
    } finally {
      await sandbox.cleanup();
    }
  });
});

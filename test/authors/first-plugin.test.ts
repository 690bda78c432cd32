/**
 * A third-party author's path, out of tree and network-free: the SDK packages are packed with
 * `pnpm pack` and served with their third-party closures from a local npm registry on 127.0.0.1;
 * then each "Write your first plugin" guide's command block runs verbatim in a fresh directory
 * outside the workspace (`clat plugin new`, `npm install`, build, test, install into a scratch
 * CLAT home, call the tool through the real `clat` binary).
 */
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLAT_BIN } from '../support/clat-bin.js';
import {
  type NpmRegistryFixture,
  resolveInstalledPackage,
  startNpmRegistry,
} from '../support/npm-registry.js';

const run = promisify(execFile);
const REPO = fileURLToPath(new URL('../../', import.meta.url));
/** The packages a plugin author installs from npm. */
const SDK_PACKAGES = [
  'kernel',
  'node-files',
  'json-schema',
  'adapter-mcp',
  'adapter-dsh',
  'wasm-guest-sdk',
];
/** Third-party packages the SDK and the scaffolds depend on, and where pnpm installed them. */
const THIRD_PARTY: [name: string, from: string][] = [
  ['zod', 'packages/adapter-dsh'],
  ['ajv', 'packages/json-schema'],
  ['esbuild', 'packages/adapter-dsh'],
  ['@modelcontextprotocol/server', 'packages/adapter-dsh'],
  ['@modelcontextprotocol/core', 'packages/adapter-dsh'],
  ['@bytecodealliance/componentize-js', 'packages/wasm-guest-sdk'],
  ['typescript', '.'],
  ['vitest', '.'],
  ['@types/node', '.'],
];

/** The shell lines between `<!-- guide:commands -->` markers of a guide. */
async function guideCommands(kind: string): Promise<string[]> {
  const text = await readFile(join(REPO, `docs/guides/first-plugin-${kind}.md`), 'utf8');
  const block = /<!-- guide:commands -->\s*```sh\n([\s\S]*?)```\s*<!-- \/guide:commands -->/.exec(
    text,
  );
  if (block?.[1] === undefined) throw new Error(`first-plugin-${kind}.md has no command block`);
  return block[1].split('\n').filter((line) => line.trim() !== '');
}

describe('write your first plugin, outside the repository', () => {
  let registry: NpmRegistryFixture;
  let work: string;
  let env: Record<string, string>;
  const packed: Record<string, { name: string; version: string; manifest: string }> = {};

  beforeAll(async () => {
    work = await mkdtemp(join(tmpdir(), 'clat-authors-'));
    registry = await startNpmRegistry();
    const tarballs = join(work, 'tarballs');
    await mkdir(tarballs, { recursive: true });
    for (const pkg of SDK_PACKAGES) {
      const { stdout } = await run('pnpm', ['pack', '--pack-destination', tarballs], {
        cwd: join(REPO, 'packages', pkg),
        timeout: 60_000,
      });
      const tarball = stdout.trim().split('\n').at(-1) as string;
      const unpacked = join(work, 'unpacked', pkg);
      await mkdir(unpacked, { recursive: true });
      await run('tar', ['xzf', tarball, '-C', unpacked]);
      const dir = join(unpacked, 'package');
      const manifest = await readFile(join(dir, 'package.json'), 'utf8');
      const published = registry.publishDir(dir);
      packed[pkg] = { name: published.name, version: published.version, manifest };
    }
    for (const [name, from] of THIRD_PARTY) {
      registry.publishClosure(resolveInstalledPackage(name, join(REPO, from)));
    }
    // A user's machine: clat on PATH as the README links it, npm talking only to the local
    // registry, a scratch home.
    const bin = join(work, 'bin');
    await mkdir(bin, { recursive: true });
    await symlink(CLAT_BIN, join(bin, 'clat'));
    env = {
      PATH: `${bin}:${dirname(process.execPath)}:/usr/bin:/bin`,
      HOME: join(work, 'user'),
      CLAT_HOME: join(work, 'clat-home'),
      NO_COLOR: '1',
      ...registry.npmEnv(join(work, 'npm')),
    };
  }, 600_000);

  afterAll(async () => {
    await registry?.close();
    if (work !== undefined) await rm(work, { recursive: true, force: true });
  });

  it('packs publish-ready SDK packages: no workspace: ranges, types and files present', () => {
    for (const pkg of SDK_PACKAGES) {
      const entry = packed[pkg];
      expect(entry?.manifest, pkg).not.toContain('workspace:');
      const manifest = JSON.parse(entry?.manifest ?? '{}');
      expect(manifest, pkg).toMatchObject({
        license: 'MIT',
        publishConfig: { access: 'public' },
        exports: { '.': { types: expect.any(String), default: expect.any(String) } },
      });
      expect(manifest.files, pkg).toEqual(expect.arrayContaining(['dist', 'README.md']));
    }
    const dsh = JSON.parse(packed['adapter-dsh']?.manifest ?? '{}');
    // A kernel minor release must not force a major bump of the adapter (0.x caret = same minor).
    expect(dsh.peerDependencies['@clat/kernel']).toBe('>=0.1.0 <1.0.0');
  });

  for (const kind of ['mcp', 'dsh', 'wasm'] as const) {
    it(`runs the ${kind} guide verbatim and calls the new tool through clat`, async () => {
      const commands = await guideCommands(kind);
      const projects = join(work, 'projects', kind);
      await mkdir(projects, { recursive: true });
      await mkdir(env.HOME as string, { recursive: true });
      const script = ['set -eu', ...commands].join('\n');
      const result = await run('bash', ['-c', script], {
        cwd: projects,
        env,
        timeout: 900_000,
        maxBuffer: 64 * 1024 * 1024,
      }).catch((error: { stdout?: string; stderr?: string; message: string }) => {
        throw new Error(
          `the ${kind} guide failed: ${error.message}\n${error.stdout ?? ''}\n${error.stderr ?? ''}`,
        );
      });
      // The last command is the tool call: its result is the tool's JSON.
      const lines = result.stdout.trim().split('\n');
      expect(JSON.parse(lines.at(-1) as string)).toEqual({ words: 3 });
      // npm resolved every package from the local registry, the SDK from the packed tarballs.
      const lock = JSON.parse(
        await readFile(join(projects, `hello-${kind}`, 'package-lock.json'), 'utf8'),
      ) as { packages: Record<string, { resolved?: string; version?: string }> };
      const resolved = Object.values(lock.packages).flatMap((entry) =>
        entry.resolved === undefined ? [] : [entry.resolved],
      );
      expect(resolved.length).toBeGreaterThan(0);
      expect(resolved.filter((url) => !url.startsWith(registry.url))).toEqual([]);
      const sdk = kind === 'wasm' ? 'wasm-guest-sdk' : kind === 'dsh' ? 'adapter-dsh' : undefined;
      if (sdk !== undefined) {
        expect(lock.packages[`node_modules/${packed[sdk]?.name}`]?.version).toBe(
          packed[sdk]?.version,
        );
      }
    }, 900_000);
  }

  it("follows the dsh guide's steps for before the SDK is on npm: the tarballs of a checkout", async () => {
    // The registry now answers 404 for the SDK, as the public one does today.
    for (const pkg of SDK_PACKAGES) registry.unpublish(packed[pkg]?.name as string);
    const guide = await readFile(join(REPO, 'docs/guides/first-plugin-dsh.md'), 'utf8');
    const block = /\*\*Before the SDK is on npm\.\*\*[\s\S]*?```sh\n([\s\S]*?)```/.exec(guide)?.[1];
    if (block === undefined) throw new Error('first-plugin-dsh.md has no tarball steps');
    const tarballSteps = block
      .split('\n')
      .filter((line) => line.trim() !== '')
      .map((line) => line.replaceAll('<clat-checkout>', REPO.replace(/\/$/, '')));
    // "in the plugin directory right after `cd`; then go on with `npm install` and the others".
    const commands = await guideCommands('dsh');
    const cd = commands.findIndex((line) => line.startsWith('cd '));
    const script = [
      'set -eu',
      ...commands.slice(0, cd + 1),
      ...tarballSteps,
      ...commands.slice(cd + 1),
    ].join('\n');
    const projects = join(work, 'projects', 'dsh-tarballs');
    await mkdir(projects, { recursive: true });
    const home = join(work, 'user-tarballs');
    await mkdir(home, { recursive: true });
    const result = await run('bash', ['-c', script], {
      cwd: projects,
      env: { ...env, HOME: home, CLAT_HOME: join(work, 'clat-home-tarballs') },
      timeout: 900_000,
      maxBuffer: 64 * 1024 * 1024,
    }).catch((error: { stdout?: string; stderr?: string; message: string }) => {
      throw new Error(
        `the dsh guide with tarballs failed: ${error.message}\n${error.stdout ?? ''}\n${error.stderr ?? ''}`,
      );
    });
    expect(JSON.parse(result.stdout.trim().split('\n').at(-1) as string)).toEqual({ words: 3 });
    // The SDK came from the tarballs the steps packed, nothing of it from the registry.
    const lock = JSON.parse(
      await readFile(join(projects, 'hello-dsh', 'package-lock.json'), 'utf8'),
    ) as { packages: Record<string, { resolved?: string }> };
    const sdk = Object.entries(lock.packages).filter(([path]) =>
      path.includes('node_modules/@clat/'),
    );
    expect(sdk.map(([path]) => path).sort()).toEqual(
      ['adapter-dsh', 'adapter-mcp', 'json-schema', 'kernel', 'node-files'].map(
        (name) => `node_modules/@clat/${name}`,
      ),
    );
    for (const [path, entry] of sdk) {
      expect(entry.resolved, path).toMatch(/^file:.*clat-sdk-dsh\/clat-[a-z-]+-[0-9.]+\.tgz$/);
    }
  }, 900_000);
});

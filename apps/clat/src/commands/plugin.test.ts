import { createHash } from 'node:crypto';
import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { CommandIO } from '../command.js';
import { pluginCommand } from './plugin.js';

let work: string;
beforeEach(async () => {
  work = await mkdtemp(join(tmpdir(), 'clat-plugin-cmd-'));
});
afterEach(async () => {
  const { execFileSync } = await import('node:child_process');
  execFileSync('chmod', ['-R', 'u+rwX', work]);
  await rm(work, { recursive: true, force: true });
});

async function run(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = '';
  let err = '';
  stdout.on('data', (chunk: Buffer) => {
    out += chunk.toString();
  });
  stderr.on('data', (chunk: Buffer) => {
    err += chunk.toString();
  });
  const io: CommandIO = {
    stdin: new PassThrough(),
    stdout,
    stderr,
    env: { CLAT_HOME: join(work, 'home') },
    cwd: work,
  };
  const code = await pluginCommand.run(argv, io);
  return { code, out, err };
}

async function writePackage(name: string, version: string, caps: object = { tools: true }) {
  const dir = join(work, name);
  await mkdir(join(dir, 'bin'), { recursive: true });
  const entry = `#!/usr/bin/env node\nconsole.log('v${version}');\n`;
  await writeFile(join(dir, 'bin', 'run.mjs'), entry);
  await chmod(join(dir, 'bin', 'run.mjs'), 0o755);
  const manifest = {
    manifestVersion: 1,
    id: 'demo',
    name: 'Demo',
    version,
    runtime: {
      kind: 'mcp-stdio',
      entry: 'bin/run.mjs',
      sha256: createHash('sha256').update(entry).digest('hex'),
    },
    capabilities: caps,
    configSchema: { type: 'object', properties: { level: { type: 'number' } } },
  };
  await writeFile(join(dir, 'clat-plugin.json'), JSON.stringify(manifest));
  return dir;
}

describe('clat plugin', () => {
  it('reports a file-system refusal in one line', async () => {
    await writeFile(join(work, 'home'), 'a file where CLAT_HOME should be a directory');
    await writePackage('v1', '1.0.0');
    const result = await run('install', 'v1', '--accept-capabilities');
    expect(result.code).toBe(1);
    expect(result.err).toMatch(/^clat: plugin install: .*(ENOTDIR|EEXIST).*\n$/);
  });

  it('inspects read-only, installs with consent, lists, updates, rolls back and uninstalls', async () => {
    await writePackage('v1', '1.0.0');
    await writePackage('v2', '2.0.0', { tools: true, hostTools: ['read_file'] });

    const inspected = await run('inspect', 'v1', '--json');
    expect(inspected.code).toBe(0);
    expect(JSON.parse(inspected.out)).toMatchObject({
      id: 'demo',
      version: '1.0.0',
      capabilities: ['tools'],
    });
    expect((await run('list')).out).toContain('No plugins installed');

    const refused = await run('install', 'v1');
    expect(refused.code).toBe(3);
    // Tools only: headless, --yes grants it (and --accept-capabilities still does).
    expect(refused.err).toBe(
      'clat: demo requests capability tools; rerun with --yes to grant it [CAPABILITY_EXPANSION]\n',
    );

    const installed = await run(
      'install',
      'v1',
      '--accept-capabilities',
      '--config-json',
      '{"level":2}',
    );
    expect(installed).toMatchObject({ code: 0, err: '' });
    expect(installed.out).toContain('Installed demo 1.0.0');

    const expansion = await run('update', 'v2');
    expect(expansion.code).toBe(3);
    expect(expansion.err).toContain('adds capabilities hostTools.read_file');

    expect((await run('update', 'v2', '--accept-capabilities')).out).toContain('Rollback: 1.0.0');
    const listed = JSON.parse((await run('list', '--json')).out);
    expect(listed).toMatchObject([
      { id: 'demo', version: '2.0.0', rollbackVersion: '1.0.0', enabled: true, health: 'ok' },
    ]);
    const registry = JSON.parse(
      await readFile(join(work, 'home', 'plugin-store', 'registry.json'), 'utf8'),
    );
    expect(registry.packages.demo.active.config).toEqual({ level: 2 });

    expect((await run('disable', 'demo')).code).toBe(0);
    expect((await run('list')).out).toMatch(
      /demo\s+Demo\s+2\.0\.0\s+mcp-stdio\s+\w{12}\s+no\s+1\.0\.0/,
    );
    expect((await run('enable', 'demo')).code).toBe(0);
    expect((await run('rollback', 'demo')).out).toContain('Rolled back demo to 1.0.0');
    expect((await run('uninstall', 'demo')).out).toContain('Uninstalled demo');
    const missing = await run('rollback', 'demo');
    expect(missing).toMatchObject({
      code: 1,
      err: 'clat: demo is not installed [PACKAGE_STATE]\n',
    });
  });

  it('packs deterministically and installs from the container', async () => {
    await writePackage('v1', '1.0.0');
    const first = await run('pack', 'v1', '--output', 'a.clatpkg');
    expect(first.code).toBe(0);
    await run('pack', 'v1', '--output', 'b.clatpkg');
    expect(
      (await readFile(join(work, 'a.clatpkg'))).equals(await readFile(join(work, 'b.clatpkg'))),
    ).toBe(true);
    const again = await run('pack', 'v1', '--output', 'a.clatpkg');
    expect(again).toMatchObject({
      code: 1,
      err: expect.stringContaining('already exists [OUTPUT_INVALID]'),
    });
    expect(JSON.parse((await run('inspect', 'a.clatpkg', '--json')).out)).toMatchObject({
      id: 'demo',
    });
    expect((await run('install', 'a.clatpkg', '--accept-capabilities')).code).toBe(0);
  });

  it('reports bad input with one line naming the file or flag', async () => {
    const dir = await writePackage('v1', '1.0.0');
    await writeFile(join(dir, 'clat-plugin.json'), '{"manifestVersion":1,"id":"x","nope":1}');
    const bad = await run('inspect', 'v1');
    expect(bad.code).toBe(1);
    expect(bad.err).toMatch(
      /^clat: clat-plugin.json: .*unknown field\(s\) "nope".*\[MANIFEST_INVALID\]\n$/,
    );
    await expect(run('install', 'v1', '--config-json', '{}', '--config-file', 'x')).rejects.toThrow(
      'either --config-file or --config-json',
    );
    await expect(run('list', '--accept-capabilities')).rejects.toThrow('only applies to install');
    await expect(run('frobnicate')).rejects.toThrow('unknown action "frobnicate"');
    await expect(run('install', 'v1', '--id', 'x')).rejects.toThrow(
      '--id only applies to npm:, MCPB and .wasm sources',
    );
    await expect(run('install', 'v1', '--host-tools', 'read_file')).rejects.toThrow(
      '--host-tools only applies to a .wasm component',
    );
    await expect(run('install', 'v1', '--bin', 'x')).rejects.toThrow(
      '--bin only applies to npm: sources',
    );
  });

  it('fails closed on a malformed registry', async () => {
    await mkdir(join(work, 'home', 'plugin-store'), { recursive: true });
    await writeFile(join(work, 'home', 'plugin-store', 'registry.json'), '{"half":');
    const listed = await run('list');
    expect(listed.code).toBe(1);
    expect(listed.err).toContain('registry.json is not valid JSON');
    expect(listed.err).toContain('[REGISTRY_INVALID]');
  });
});

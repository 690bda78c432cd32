import { execFileSync } from 'node:child_process';
import { chmod, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { PluginStore } from './plugin-store.js';
import { installedServerEntries } from './server-entries.js';
import { writeFixturePackage } from './test-fixtures.js';

let work: string;
let home: string;
beforeEach(async () => {
  work = await mkdtemp(join(tmpdir(), 'entries-'));
  home = join(work, 'home');
});
afterEach(async () => {
  execFileSync('chmod', ['-R', 'u+rwX', work]);
  await rm(work, { recursive: true, force: true });
});

const ENTRY = `#!/usr/bin/env node
process.stdout.write(JSON.stringify({ cwd: process.cwd(), id: process.env.CLAT_PLUGIN_ID,
  version: process.env.CLAT_PLUGIN_VERSION, config: process.env.CLAT_PLUGIN_CONFIG,
  trust: process.env.CLAT_PLUGIN_TRUST, args: process.argv.slice(2) }));
`;

describe('installedServerEntries', () => {
  it('returns a launchable stdio entry: absolute entry, artifact cwd, CLAT_PLUGIN_* env', async () => {
    const src = join(work, 'src');
    await writeFixturePackage(src, {
      id: 'echo',
      entryText: ENTRY,
      capabilities: { tools: true, prompts: true },
      args: ['--stdio'],
      manifest: { prompts: [{ name: 'usage', system: 'Use echo.' }] },
    });

    const store = new PluginStore({ clatHome: home });
    const { treeSha256 } = await store.install(src, {
      acceptCapabilities: true,
      config: { greeting: 'hi' },
    });
    const entries = await installedServerEntries(home);
    expect(entries.issues).toEqual([]);
    expect(entries.prompts).toEqual([{ server: 'echo', name: 'usage', system: 'Use echo.' }]);
    const [server] = entries.servers;
    expect(server?.withholdTools).toBeUndefined();
    expect(server).toMatchObject({
      transport: 'stdio',
      name: 'echo',
      origin: 'package',
      cwd: store.artifactDir('echo', treeSha256),
      args: ['--stdio'],
      env: {
        CLAT_PLUGIN_ID: 'echo',
        CLAT_PLUGIN_VERSION: '1.0.0',
        CLAT_PLUGIN_TREE_SHA256: treeSha256,
        CLAT_PLUGIN_TRUST: 'local/unverified',
        CLAT_PLUGIN_CONFIG: '{"greeting":"hi"}',
        CLAT_PLUGIN_DATA: join(home, 'plugin-data', 'echo'),
      },
    });
    if (server?.transport !== 'stdio') throw new Error('expected stdio');
    // Really launch it the way the stdio adapter would.
    const output = execFileSync(server.command, server.args ?? [], {
      cwd: server.cwd,
      env: { PATH: process.env.PATH, ...server.env },
    }).toString();
    expect(JSON.parse(output)).toEqual({
      cwd: server.cwd,
      id: 'echo',
      version: '1.0.0',
      config: '{"greeting":"hi"}',
      trust: 'local/unverified',
      args: ['--stdio'],
    });
  });

  it('runs a node-interpreted entry with substituted env/args, a 0700 data dir and secrets kept 0600 outside the registry', async () => {
    const store = new PluginStore({ clatHome: home });
    const entryText =
      'process.stdout.write(JSON.stringify({ argv: process.argv.slice(2), token: process.env.TOKEN, store: process.env.STORE_PATH }));\n';
    const noded = (version: string) =>
      writeFixturePackage(join(work, 'n'), {
        id: 'noded',
        version,
        entryText,
        entry: 'server.mjs',
        executable: false,
        interpreter: 'node',
        args: ['--depth', '${config.depth}', '${config.dirs}'],
        env: { TOKEN: '${config.token}', STORE_PATH: '${CLAT_PLUGIN_DATA}/memory.jsonl' },
        manifest: {
          userConfig: {
            token: { type: 'string', title: 'Token', sensitive: true, required: true },
            depth: { type: 'number', title: 'Depth', default: 2 },
            dirs: { type: 'directory', title: 'Dirs', multiple: true, default: ['/a', '/b'] },
          },
        },
      });
    await noded('1.0.0');
    await expect(
      store.install(join(work, 'n'), { yes: true, configValues: {} }),
    ).rejects.toMatchObject({
      code: 'CONFIG_INVALID',
      message: expect.stringContaining('"token"'),
    });
    await store.install(join(work, 'n'), {
      yes: true,
      configValues: { token: 's3cret-value', depth: '4' },
    });
    expect(await readFile(store.registryFile, 'utf8')).not.toContain('s3cret-value');
    const token = (await store.readRegistry()).packages.noded?.active.secrets;
    const secrets = join(home, 'plugin-secrets', `noded.${token}.json`);
    expect((await stat(secrets)).mode & 0o777).toBe(0o600);
    expect((await stat(join(home, 'plugin-secrets'))).mode & 0o777).toBe(0o700);

    const entries = await installedServerEntries(home);
    const server = entries.servers[0];
    if (server?.transport !== 'stdio') throw new Error('expected stdio');
    expect(server.command).toBe(process.execPath);
    const data = join(home, 'plugin-data', 'noded');
    expect((await stat(data)).mode & 0o777).toBe(0o700);
    const output = execFileSync(server.command, server.args ?? [], {
      cwd: server.cwd,
      env: { ...server.env },
    }).toString();
    expect(JSON.parse(output)).toEqual({
      argv: ['--depth', '4', '/a', '/b'],
      token: 's3cret-value',
      store: join(data, 'memory.jsonl'),
    });
    // An update without config keeps both the stored and the sensitive values.
    await store.update(join(work, 'n'));
    const kept = (await store.readRegistry()).packages.noded?.active.secrets;
    expect(kept).not.toBe(token);
    expect(
      JSON.parse(await readFile(join(home, 'plugin-secrets', `noded.${kept}.json`), 'utf8')),
    ).toEqual({ token: 's3cret-value' });

    // Each activation keeps its own sensitive values: a rollback launches with the old token.
    const tokenOf = async () => {
      const launched = (await installedServerEntries(home)).servers[0];
      if (launched?.transport !== 'stdio') throw new Error('expected stdio');
      return JSON.parse(
        execFileSync(launched.command, launched.args ?? [], {
          env: { ...launched.env },
        }).toString(),
      ).token;
    };
    await noded('2.0.0');
    await store.update(join(work, 'n'), { configValues: { token: 'n3w-value' } });
    expect(await tokenOf()).toBe('n3w-value');
    await store.rollback('noded');
    expect(await tokenOf()).toBe('s3cret-value');

    // configure: new settings for the same bytes, no source needed; the rollback slot stays.
    const before = (await store.readRegistry()).packages.noded;
    const configured = await store.configure('noded', { configValues: { token: 'c0nf-value' } });
    expect(configured).toEqual({ id: 'noded', version: '1.0.0', changed: true });
    const after = (await store.readRegistry()).packages.noded;
    expect(after?.active.artifact).toBe(before?.active.artifact);
    expect(after?.active.config).toEqual({ depth: 4 });
    expect(after?.rollback).toEqual(before?.rollback);
    expect(after?.active.secrets).not.toBe(before?.active.secrets);
    expect(await tokenOf()).toBe('c0nf-value');
    expect(await store.settings('noded')).toMatchObject({
      version: '1.0.0',
      config: { depth: 4 },
      sensitiveSet: ['token'],
    });
    // The same values again write nothing; a bad value is refused and changes nothing.
    expect(await store.configure('noded', { configValues: { depth: '4' } })).toMatchObject({
      changed: false,
    });
    await expect(
      store.configure('noded', { configValues: { depth: 'deep' } }),
    ).rejects.toMatchObject({ code: 'CONFIG_INVALID', message: expect.stringContaining('depth') });
    expect((await store.readRegistry()).packages.noded).toEqual(after);
    await expect(store.configure('absent', { configValues: {} })).rejects.toMatchObject({
      code: 'PACKAGE_STATE',
    });
    await store.rollback('noded');
    expect(await tokenOf()).toBe('n3w-value');
    // A file no activation reads (an update stopped before its registry write) goes at the next
    // change; so do an uninstalled package's.
    const orphan = join(home, 'plugin-secrets', 'noded.0123456789abcdef.json');
    await writeFile(orphan, '{"token":"never-active"}');
    await store.disable('noded');
    expect((await readdir(join(home, 'plugin-secrets'))).length).toBe(2);
    await store.uninstall('noded');
    expect(await readdir(join(home, 'plugin-secrets'))).toEqual([]);
  });

  it('never launches without the secrets a configure in another process swapped meanwhile', async () => {
    const store = new PluginStore({ clatHome: home });
    await writeFixturePackage(join(work, 's'), {
      id: 'secretive',
      entryText: 'process.stdout.write(process.env.TOKEN ?? "none");\n',
      entry: 'server.mjs',
      executable: false,
      interpreter: 'node',
      env: { TOKEN: '${config.token}' },
      manifest: {
        userConfig: { token: { type: 'string', title: 'Token', sensitive: true, required: true } },
      },
    });
    await store.install(join(work, 's'), { yes: true, configValues: { token: 'first-value' } });
    // The start has read the registry; before it reads the secrets, another process configures
    // the package, whose lease sweeps the secrets file the start was about to read.
    const verify = PluginStore.prototype.verifyActivation;
    const spy = vi
      .spyOn(PluginStore.prototype, 'verifyActivation')
      .mockImplementationOnce(async function (this: PluginStore, id, record) {
        const verified = await verify.call(this, id, record);
        await new PluginStore({ clatHome: home }).configure('secretive', {
          configValues: { token: 'second-value' },
        });
        return verified;
      });
    try {
      const [server] = (await installedServerEntries(home)).servers;
      if (server?.transport !== 'stdio') throw new Error('expected stdio');
      expect(server.env?.TOKEN).toBe('second-value');
      expect(spy).toHaveBeenCalledTimes(2);
    } finally {
      spy.mockRestore();
    }
  });

  it('does not call a package damaged whose files another process uninstalled meanwhile', async () => {
    const store = new PluginStore({ clatHome: home });
    await writeFixturePackage(join(work, 'u'), { id: 'leaving' });
    await store.install(join(work, 'u'), { yes: true });
    const verify = PluginStore.prototype.verifyActivation;
    const spy = vi
      .spyOn(PluginStore.prototype, 'verifyActivation')
      .mockImplementationOnce(async function (this: PluginStore, id, record) {
        await new PluginStore({ clatHome: home }).uninstall('leaving');
        return verify.call(this, id, record);
      });
    try {
      const entries = await installedServerEntries(home);
      expect(entries.issues).toEqual([]);
      expect(entries.servers).toEqual([]);
    } finally {
      spy.mockRestore();
    }
  });

  it('skips disabled packages, reports tampered ones, and mounts nothing on a bad registry', async () => {
    const store = new PluginStore({ clatHome: home });
    await writeFixturePackage(join(work, 'a'), { id: 'alpha' });
    await writeFixturePackage(join(work, 'b'), { id: 'beta' });
    await writeFixturePackage(join(work, 'c'), { id: 'gamma' });
    const alpha = await store.install(join(work, 'a'), { acceptCapabilities: true });
    await store.install(join(work, 'b'), { acceptCapabilities: true });
    await store.install(join(work, 'c'), { acceptCapabilities: true });
    await store.disable('gamma');
    const entry = join(store.artifactDir('alpha', alpha.treeSha256), 'bin', 'server.mjs');
    await chmod(entry, 0o700);
    await writeFile(entry, '#!/bin/sh\necho pwned\n');

    const entries = await installedServerEntries(home);
    expect(entries.servers.map((s) => s.name)).toEqual(['beta']);
    expect(entries.issues).toEqual([
      {
        id: 'alpha',
        message:
          'bin/server.mjs of installed package alpha was changed; run "clat plugin repair alpha"',
      },
    ]);

    await writeFile(store.registryFile, '[]');
    const closed = await installedServerEntries(home);
    expect(closed.servers).toEqual([]);
    expect(closed.registryError).toContain('registry.json is malformed');
  });

  it('withholds the tools of a package whose manifest does not declare capability tools', async () => {
    const src = join(work, 'src');
    await writeFixturePackage(src, { id: 'promptsonly', capabilities: { prompts: true } });
    await new PluginStore({ clatHome: home }).install(src, { acceptCapabilities: true });
    const [server] = (await installedServerEntries(home)).servers;
    expect(server?.withholdTools).toBe(
      'because its package manifest does not declare capability `tools`',
    );
  });

  it('returns nothing for a fresh CLAT home', async () => {
    expect(await installedServerEntries(home)).toEqual({
      servers: [],
      components: [],
      prompts: [],
      issues: [],
      notes: [],
    });
  });
});

import { existsSync } from 'node:fs';
import {
  chmod,
  lstat,
  mkdir,
  mkdtemp,
  readdir,
  readFile,
  rm,
  stat,
  utimes,
  writeFile,
} from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { packPackage } from './clatpkg.js';
import { PluginStore } from './plugin-store.js';
import { installedServerEntries } from './server-entries.js';
import { STORE_BUSY_MESSAGE } from './store-lock.js';
import {
  type FixtureOptions,
  minisignKeys,
  signFixturePackage,
  writeFixturePackage,
} from './test-fixtures.js';

let work: string;
let store: PluginStore;
beforeEach(async () => {
  work = await mkdtemp(join(tmpdir(), 'store-'));
  store = new PluginStore({ clatHome: join(work, 'home') });
});
afterEach(async () => {
  await chmodTree(work);
  await rm(work, { recursive: true, force: true });
});

async function chmodTree(dir: string): Promise<void> {
  await chmod(dir, 0o700).catch(() => undefined);
  for (const entry of await readdir(dir, { withFileTypes: true }).catch(() => [])) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) await chmodTree(path);
    else await chmod(path, 0o600).catch(() => undefined);
  }
}

/** A sensitive setting, kept in the secrets file. */
const TOKEN = { token: { type: 'string', title: 'Token', sensitive: true } } as const;

let counter = 0;
async function pkg(options: FixtureOptions = {}) {
  const dir = join(work, `src-${counter++}`);
  await writeFixturePackage(dir, options);
  return dir;
}

async function registryText(): Promise<string> {
  return readFile(store.registryFile, 'utf8');
}

describe('PluginStore lifecycle', () => {
  it('installs into an immutable content-addressed artifact with a 0600 registry', async () => {
    const result = await store.install(await pkg(), { acceptCapabilities: true });
    expect(result).toMatchObject({ id: 'fixture', version: '1.0.0', granted: ['tools'] });
    const artifact = store.artifactDir('fixture', result.treeSha256);
    expect((await stat(join(artifact, 'bin', 'server.mjs'))).mode & 0o777).toBe(0o500);
    expect((await stat(join(artifact, 'clat-plugin.json'))).mode & 0o777).toBe(0o400);
    expect((await stat(store.registryFile)).mode & 0o777).toBe(0o600);
    expect((await stat(store.root)).mode & 0o777).toBe(0o700);
    const registry = JSON.parse(await registryText());
    expect(registry.unit).toEqual({ name: 'clat-plugin-registry', version: 1 });
    expect(registry.packages.fixture.active.artifact).toBe(result.treeSha256);
    expect(await store.list()).toMatchObject([
      { id: 'fixture', version: '1.0.0', enabled: true, health: 'ok', trust: 'local/unverified' },
    ]);
  });

  it('needs --accept-capabilities for any capability on install and lists them', async () => {
    const dir = await pkg({ capabilities: { tools: true, sampling: true, hostTools: ['search'] } });
    await expect(store.install(dir)).rejects.toMatchObject({
      code: 'CAPABILITY_EXPANSION',
      message: expect.stringContaining('requests capabilities tools, sampling, hostTools.search'),
    });
    await expect(lstat(store.registryFile)).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('install on an installed id names the update of the same source; update on a missing id names the install', async () => {
    const dir = await pkg();
    await expect(
      store.update(dir, { acceptCapabilities: true, sourceArgument: './fixture' }),
    ).rejects.toMatchObject({
      code: 'PACKAGE_STATE',
      message: 'fixture is not installed; to install it, run "clat plugin install ./fixture"',
    });
    await store.install(dir, { acceptCapabilities: true });
    // The same bytes again are a reinstall (it restores them), not an error.
    await expect(store.install(dir, { acceptCapabilities: true })).resolves.toMatchObject({
      id: 'fixture',
    });
    const other = await pkg({ version: '9' });
    await expect(
      store.install(other, { acceptCapabilities: true, sourceArgument: '.' }),
    ).rejects.toMatchObject({
      code: 'PACKAGE_STATE',
      message: expect.stringMatching(
        /already installed .*; to replace it, run "clat plugin update \."$/,
      ),
    });
  });

  it('update keeps one rollback; capability expansion stops unless accepted', async () => {
    const v1 = await store.install(await pkg({ version: '1.0.0' }), { acceptCapabilities: true });
    const v2 = await store.update(await pkg({ version: '2.0.0' }));
    expect(v2).toMatchObject({ version: '2.0.0', rollbackVersion: '1.0.0', granted: [] });
    const wider = await pkg({ version: '3.0.0', capabilities: { tools: true, elicitation: true } });
    const before = await registryText();
    await expect(store.update(wider)).rejects.toMatchObject({
      code: 'CAPABILITY_EXPANSION',
      message: expect.stringContaining('adds capabilities elicitation'),
    });
    expect(await registryText()).toBe(before);
    const v3 = await store.update(wider, { acceptCapabilities: true });
    expect(v3).toMatchObject({
      version: '3.0.0',
      rollbackVersion: '2.0.0',
      granted: ['elicitation'],
    });
    // Only active + rollback bytes are kept.
    expect((await readdir(join(store.root, 'artifacts', 'fixture'))).sort()).toEqual(
      [v2.treeSha256, v3.treeSha256].sort(),
    );
    expect(v1.treeSha256).not.toBe(v2.treeSha256);

    const rolled = await store.rollback('fixture');
    expect(rolled).toMatchObject({ version: '2.0.0', rollbackVersion: '3.0.0' });
    expect((await store.list())[0]).toMatchObject({ version: '2.0.0', rollbackVersion: '3.0.0' });
  });

  it('refuses an update prepared from a version another process replaced meanwhile', async () => {
    const v1 = await store.install(await pkg({ version: '1.0.0' }), { acceptCapabilities: true });
    // Another process's update lands while this one is prepared from v1 (npm fetching).
    await store.update(await pkg({ version: '2.0.0' }));
    const before = await registryText();
    await expect(
      store.update(await pkg({ version: '3.0.0' }), { basedOn: v1.treeSha256 }),
    ).rejects.toMatchObject({
      code: 'STORE_BUSY',
      message:
        'fixture was changed by another clat process while this update was prepared (it is now version 2.0.0); nothing was changed, run the command again to update from what is installed now',
    });
    expect(await registryText()).toBe(before);
    const current = JSON.parse(before).packages.fixture.active.artifact;
    expect(await store.update(await pkg({ version: '3.0.0' }), { basedOn: current })).toMatchObject(
      { version: '3.0.0' },
    );
  });

  it('stores config only in the registry and carries it forward on update', async () => {
    const schema = { type: 'object', required: ['token'] };
    await expect(
      store.install(await pkg({ configSchema: schema }), { acceptCapabilities: true }),
    ).rejects.toMatchObject({ code: 'CONFIG_INVALID' });
    await store.install(await pkg({ configSchema: schema }), {
      acceptCapabilities: true,
      config: { token: 'secret-value' },
    });
    await store.update(await pkg({ configSchema: schema, version: '2' }));
    const registry = JSON.parse(await registryText());
    expect(registry.packages.fixture.active.config).toEqual({ token: 'secret-value' });
    const artifactFiles = await readdir(
      store.artifactDir('fixture', registry.packages.fixture.active.artifact),
      { recursive: true },
    );
    expect(artifactFiles.join(' ')).not.toContain('config');
    await expect(
      store.update(await pkg({ configSchema: schema, version: '3' }), {
        config: { token: 'x'.repeat(65 * 1024) },
      }),
    ).rejects.toMatchObject({ code: 'CONFIG_INVALID' });
  });

  it('setRoots keeps a server from the project root across updates and rollbacks, until set back', async () => {
    await store.install(await pkg(), { acceptCapabilities: true });
    await store.setRoots('fixture', false);
    expect((await store.list())[0]).toMatchObject({ id: 'fixture', roots: false });
    await store.update(await pkg({ version: '2' }), { acceptCapabilities: true });
    expect((await store.list())[0]).toMatchObject({ version: '2', roots: false });
    await store.rollback('fixture');
    expect((await store.list())[0]).toMatchObject({ roots: false });
    await store.setRoots('fixture', true);
    expect((await store.list())[0]?.roots).toBeUndefined();
    expect(JSON.parse(await registryText()).packages.fixture).not.toHaveProperty('roots');
    await expect(store.setRoots('absent', false)).rejects.toMatchObject({ code: 'PACKAGE_STATE' });
  });

  it("takes no name of Object's prototype for an installed package, and writes nothing for one", async () => {
    await store.install(await pkg(), { acceptCapabilities: true });
    const before = await registryText();
    for (const id of ['constructor', '__proto__', 'toString', 'hasOwnProperty']) {
      const notInstalled = { code: 'PACKAGE_STATE', message: `${id} is not installed` };
      await expect(store.setRoots(id, false)).rejects.toMatchObject(notInstalled);
      await expect(store.disable(id)).rejects.toMatchObject(notInstalled);
      await expect(store.enable(id)).rejects.toMatchObject(notInstalled);
      await expect(store.uninstall(id)).rejects.toMatchObject(notInstalled);
      await expect(store.rollback(id)).rejects.toMatchObject(notInstalled);
      await expect(store.repair(id)).rejects.toMatchObject({ code: 'PACKAGE_STATE' });
      expect((await store.readRegistry()).packages[id]).toBeUndefined();
    }
    expect(await registryText()).toBe(before);
  });

  it('disable skips verification, enable verifies, uninstall removes pointer then bytes', async () => {
    const { treeSha256 } = await store.install(await pkg(), { acceptCapabilities: true });
    const entry = join(store.artifactDir('fixture', treeSha256), 'bin', 'server.mjs');
    await chmod(entry, 0o700);
    await writeFile(entry, '#!/usr/bin/env node\nconsole.log("tampered")\n');
    await store.disable('fixture');
    await expect(store.enable('fixture')).rejects.toMatchObject({ code: 'ARTIFACT_TAMPERED' });
    expect((await store.list())[0]).toMatchObject({
      enabled: false,
      health:
        'bin/server.mjs of installed package fixture was changed; run "clat plugin repair fixture"',
    });
    await store.uninstall('fixture');
    expect(JSON.parse(await registryText()).packages).toEqual({});
    await expect(lstat(join(store.root, 'artifacts', 'fixture'))).rejects.toMatchObject({
      code: 'ENOENT',
    });
    await expect(store.uninstall('fixture')).rejects.toMatchObject({ code: 'PACKAGE_STATE' });
    await expect(store.rollback('fixture')).rejects.toMatchObject({ code: 'PACKAGE_STATE' });
  });

  it('reports files a server added without failing the package; repair moves them to its data directory', async () => {
    const { treeSha256 } = await store.install(await pkg(), { acceptCapabilities: true });
    const dir = store.artifactDir('fixture', treeSha256);
    await writeFile(join(dir, 'memory.jsonl'), '{"state":1}\n');
    await mkdir(join(dir, 'cache'));
    await writeFile(join(dir, 'cache', 'index.db'), 'db');
    expect((await store.list())[0]?.health).toBe(
      'ok, but 2 file(s) were added to its directory (cache/index.db, memory.jsonl); "clat plugin repair fixture" moves them to its data directory',
    );
    const record = JSON.parse(await registryText()).packages.fixture;
    expect((await store.verifyActivation('fixture', record)).added).toEqual([
      'cache/index.db',
      'memory.jsonl',
    ]);
    const repaired = await store.repair('fixture');
    const [line] = repaired.repaired;
    const kept =
      /^active: moved 2 added file\(s\) \(cache\/index\.db, memory\.jsonl\) to (.+)$/.exec(
        line ?? '',
      )?.[1];
    expect(kept?.startsWith(join(work, 'home', 'plugin-data', 'fixture', 'repaired-'))).toBe(true);
    // Nothing is lost: the server's data sits in the owner-only data directory.
    expect(await readFile(join(kept as string, 'memory.jsonl'), 'utf8')).toBe('{"state":1}\n');
    expect(await readFile(join(kept as string, 'cache', 'index.db'), 'utf8')).toBe('db');
    expect((await stat(join(work, 'home', 'plugin-data', 'fixture'))).mode & 0o777).toBe(0o700);
    expect(existsSync(join(dir, 'memory.jsonl'))).toBe(false);
    expect((await store.list())[0]?.health).toBe('ok');
    expect((await store.repair('fixture')).repaired).toEqual([]);
  });

  it('the same bytes again keep what the server added and say what changed', async () => {
    const source = await pkg({ configSchema: { type: 'object' } });
    const first = await store.install(source, { acceptCapabilities: true, config: { n: 1 } });
    expect(first.reinstall).toBeUndefined();
    const dir = store.artifactDir('fixture', first.treeSha256);
    await writeFile(join(dir, 'memory.jsonl'), '{"state":1}\n');
    // Nothing new: the server's file stays where it wrote it.
    expect((await store.update(source)).reinstall).toEqual({
      settingsChanged: false,
      restored: false,
    });
    expect(await readFile(join(dir, 'memory.jsonl'), 'utf8')).toBe('{"state":1}\n');
    expect((await store.update(source, { config: { n: 2 } })).reinstall).toEqual({
      settingsChanged: true,
      restored: false,
    });
    // A changed shipped file is restored; the added file goes to the data directory first.
    const entry = join(dir, 'bin', 'server.mjs');
    await chmod(entry, 0o700);
    await writeFile(entry, 'tampered');
    const restored = await store.install(source);
    expect(restored.reinstall).toMatchObject({ restored: true, settingsChanged: false });
    const kept = restored.reinstall?.kept as string;
    expect(kept.startsWith(join(work, 'home', 'plugin-data', 'fixture', 'repaired-'))).toBe(true);
    expect(kept.endsWith('-reinstall')).toBe(true);
    expect(await readFile(join(kept, 'memory.jsonl'), 'utf8')).toBe('{"state":1}\n');
    expect((await store.list())[0]?.health).toBe('ok');
  });

  it('repair restores changed and removed shipped files from the stored container', async () => {
    const v1 = await store.install(await pkg({ version: '1' }), { acceptCapabilities: true });
    const v2 = await store.update(await pkg({ version: '2', extraFiles: { 'lib/a.js': 'a' } }));
    const entry = join(store.artifactDir('fixture', v2.treeSha256), 'bin', 'server.mjs');
    await chmod(entry, 0o700);
    await writeFile(entry, '#!/usr/bin/env node\nconsole.log("tampered")\n');
    await rm(join(store.artifactDir('fixture', v2.treeSha256), 'lib', 'a.js'));
    await rm(join(store.artifactDir('fixture', v1.treeSha256), 'clat-plugin.json'));
    await expect(store.update(await pkg({ version: '3' }))).rejects.toMatchObject({
      code: 'ARTIFACT_TAMPERED',
      message: expect.stringMatching(/(changed|removed); run "clat plugin repair fixture"$/),
      data: {
        reason: expect.stringMatching(/of installed package fixture was (changed|removed)$/),
      },
    });
    const { repaired } = await store.repair('fixture');
    expect(repaired).toHaveLength(2);
    expect(repaired[1]).toBe('rollback: clat-plugin.json of installed package fixture was removed');
    expect((await store.list())[0]).toMatchObject({ version: '2', health: 'ok' });
    await store.rollback('fixture');
    expect((await store.list())[0]).toMatchObject({ version: '1', health: 'ok' });
  });

  it('repairs a package from a same-version reinstall when no stored copy exists', async () => {
    const dir = await pkg();
    const { treeSha256 } = await store.install(dir, { acceptCapabilities: true });
    await rm(store.containerPath('fixture', treeSha256));
    const entry = join(store.artifactDir('fixture', treeSha256), 'bin', 'server.mjs');
    await chmod(entry, 0o700);
    await writeFile(entry, 'tampered');
    const container = store.containerPath('fixture', treeSha256);
    await expect(store.repair('fixture')).rejects.toMatchObject({
      code: 'PACKAGE_STATE',
      message: `no stored copy of fixture 1.0.0 to repair from (${container} is missing); reinstall the same version (fixture 1.0.0) with "clat plugin install <its package>"`,
    });
    // The listing does not send the person to that repair either.
    expect((await store.list())[0]?.health).toMatch(
      /; its stored copy .* is missing too, so reinstall the same version \(fixture 1\.0\.0\) with "clat plugin install <its package>"$/,
    );
    await store.install(dir, {});
    expect((await store.list())[0]?.health).toBe('ok');
  });

  it('a removed registry with packages in the store disables them and removes nothing', async () => {
    const { treeSha256 } = await store.install(await pkg({ manifest: { userConfig: TOKEN } }), {
      acceptCapabilities: true,
      configValues: { token: 'secret-0123456789' },
    });
    await rm(store.registryFile);
    const secrets = join(store.clatHome, 'plugin-secrets');
    const before = await readdir(secrets);
    expect(before).toHaveLength(1);
    const error = {
      code: 'REGISTRY_MISSING',
      message: expect.stringMatching(
        /is missing, but the plugin store holds 1 package\(s\) it does not list \(fixture\); plugins are disabled and none of their files is removed: restore .* from a backup, or start over with "mv .*" and install them again/,
      ),
    };
    await expect(store.list()).rejects.toMatchObject(error);
    await expect(store.repair('fixture')).rejects.toMatchObject(error);
    await expect(
      store.install(await pkg({ id: 'other' }), { acceptCapabilities: true }),
    ).rejects.toMatchObject(error);
    expect(existsSync(store.artifactDir('fixture', treeSha256))).toBe(true);
    expect(existsSync(store.containerPath('fixture', treeSha256))).toBe(true);
    expect(await readdir(secrets)).toEqual(before);
    expect((await installedServerEntries(store.clatHome)).registryError).toMatch(/is missing/);
  });

  it('an unreadable secrets file is named in the listing and replaced by configure given its keys', async () => {
    const source = await pkg({ manifest: { userConfig: TOKEN } });
    await store.install(source, { acceptCapabilities: true, configValues: { token: 'one' } });
    const secrets = join(store.clatHome, 'plugin-secrets');
    const [name] = await readdir(secrets);
    const file = join(secrets, name as string);
    await writeFile(file, '');
    const advice = `${file} is not a JSON object (it is empty); set fixture's sensitive settings (token) again with "clat plugin configure fixture --config token=<value>"`;
    expect((await store.list())[0]?.health).toBe(advice);
    // What would keep the old value it cannot read is refused, naming the key.
    await expect(
      store.update(await pkg({ version: '2', manifest: { userConfig: TOKEN } })),
    ).rejects.toMatchObject({
      code: 'SECRETS_UNREADABLE',
      message: `${file} is not a JSON object (it is empty), so fixture's sensitive settings token cannot be kept: add --config token=<value> to the command`,
    });
    await expect(
      store.configure('fixture', { configValues: { token: 'two' } }),
    ).resolves.toMatchObject({ changed: true });
    expect((await store.list())[0]?.health).toBe('ok');
    expect(await store.settings('fixture')).toMatchObject({ sensitiveSet: ['token'] });
    expect(await readdir(secrets)).not.toContain(name);
  });

  it('a registry from a newer CLAT is named so, not malformed', async () => {
    await store.install(await pkg(), { acceptCapabilities: true });
    const registry = JSON.parse(await registryText());
    registry.unit.version = 2;
    await writeFile(store.registryFile, JSON.stringify(registry));
    await expect(store.list()).rejects.toMatchObject({
      code: 'REGISTRY_INVALID',
      message: `${store.registryFile} was written by a newer CLAT (registry version 2, this CLAT reads version 1); upgrade CLAT to use its plugins`,
    });
  });

  it('rollback without a rollback activation errors', async () => {
    await store.install(await pkg(), { acceptCapabilities: true });
    await expect(store.rollback('fixture')).rejects.toMatchObject({
      code: 'PACKAGE_STATE',
      message: 'fixture has no rollback activation',
    });
  });

  it('installs from a .clatpkg container', async () => {
    const { output, treeSha256 } = await packPackage(await pkg(), join(work, 'f.clatpkg'));
    const result = await store.install(output, { acceptCapabilities: true });
    expect(result.treeSha256).toBe(treeSha256);
    expect(await readdir(join(store.root, 'staging'))).toEqual([]);
  });
});

describe('PluginStore failure handling', () => {
  it('fails closed on a malformed registry and never overwrites it', async () => {
    await store.install(await pkg(), { acceptCapabilities: true });
    for (const text of ['{not json', '{"unit":{"name":"x","version":1},"packages":{}}']) {
      await writeFile(store.registryFile, text);
      await expect(store.list()).rejects.toMatchObject({ code: 'REGISTRY_INVALID' });
      await expect(
        store.install(await pkg({ id: 'other' }), { acceptCapabilities: true }),
      ).rejects.toMatchObject({ code: 'REGISTRY_INVALID' });
      expect(await registryText()).toBe(text);
    }
  });

  it('fails closed on an invariant break (active points to a missing artifact)', async () => {
    await store.install(await pkg(), { acceptCapabilities: true });
    const registry = JSON.parse(await registryText());
    registry.packages.fixture.active.artifact = 'f'.repeat(64);
    await writeFile(store.registryFile, JSON.stringify(registry));
    await expect(store.list()).rejects.toMatchObject({
      code: 'REGISTRY_INVALID',
      message: expect.stringContaining('points to a missing artifact'),
    });
  });

  it('lists an npm source with its --env by name only, key-like arguments and registry credentials redacted', async () => {
    const secret = 'sk-proj-EnvValue0123456789';
    await store.install(await pkg(), {
      acceptCapabilities: true,
      source: {
        kind: 'npm',
        name: 'fixture',
        version: '1.0.0',
        range: 'latest',
        integrity: 'sha512-abc',
        registry: 'https://ci:registry-pass-42@npm.example/',
        bin: 'fixture',
        env: { API_TOKEN: secret, DATA: 'data.jsonl' },
        args: ['--headless', '--api-key', secret],
      },
    });
    const rows = await store.list();
    expect(rows[0]?.source).toEqual({
      kind: 'npm',
      name: 'fixture',
      version: '1.0.0',
      range: 'latest',
      integrity: 'sha512-abc',
      registry: 'https://ci:[REDACTED]@npm.example/',
      bin: 'fixture',
      env: ['API_TOKEN', 'DATA'],
      args: ['--headless', '--api-key', '[REDACTED]'],
    });
    expect(JSON.stringify(rows)).not.toContain(secret);
    // The registry keeps the values: the server needs them at launch.
    expect(JSON.parse(await registryText()).packages.fixture.artifacts).toMatchObject({
      [rows[0]?.treeSha256 ?? '']: { source: { env: { API_TOKEN: secret } } },
    });
  });

  it('isolates a damaged artifact to its own package', async () => {
    const a = await store.install(await pkg({ id: 'alpha' }), { acceptCapabilities: true });
    await store.install(await pkg({ id: 'beta' }), { acceptCapabilities: true });
    await rm(store.artifactDir('alpha', a.treeSha256), { recursive: true, force: true });
    const rows = await store.list();
    expect(rows.find((r) => r.id === 'beta')?.health).toBe('ok');
    expect(rows.find((r) => r.id === 'alpha')?.health).toContain('alpha');
  });

  it('asks its questions before taking the lease, so another command can change the store meanwhile', async () => {
    await store.install(await pkg({ id: 'other' }), { acceptCapabilities: true });
    const source = await pkg({
      id: 'asking',
      manifest: {
        userConfig: { key: { type: 'string', title: 'Key', sensitive: true, required: true } },
      },
    });
    // While the person reads each question, another process disables a package at once.
    const meanwhile = () =>
      new PluginStore({ clatHome: store.clatHome, waitMs: 0 }).disable('other');
    const asked: string[] = [];
    await store.install(source, {
      confirm: async (request) => {
        asked.push(`tools of ${request.id}`);
        await meanwhile();
        return true;
      },
      askConfig: async (key) => {
        asked.push(key);
        await new PluginStore({ clatHome: store.clatHome, waitMs: 0 }).enable('other');
        return 'k3y-value';
      },
    });
    expect(asked).toEqual(['tools of asking', 'key']);
    const registry = await store.readRegistry();
    expect(registry.packages.asking?.active.acceptedCapabilities.tools).toBe(true);
    expect(await store.settings('asking')).toMatchObject({ sensitiveSet: ['key'] });
    // A change refused anyway is refused before any question.
    const never = async () => {
      throw new Error('asked before a refusal');
    };
    await expect(
      store.update(await pkg({ id: 'absent' }), { confirm: never, askConfig: never }),
    ).rejects.toMatchObject({ code: 'PACKAGE_STATE' });
    // A refused grant installs nothing, as under the lease.
    await expect(
      store.install(await pkg({ id: 'refused' }), { confirm: async () => false }),
    ).rejects.toMatchObject({ code: 'CAPABILITY_EXPANSION' });
    expect((await store.readRegistry()).packages.refused).toBeUndefined();
  });

  it('waits for a lease another process holds, and takes it once released', async () => {
    await store.install(await pkg(), { acceptCapabilities: true });
    const held = await new PluginStore({ clatHome: store.clatHome }).acquireLease();
    const waiting = store.disable('fixture');
    await new Promise((resolve) => setTimeout(resolve, 300));
    await held.release();
    await waiting;
    expect((await store.readRegistry()).packages.fixture?.enabled).toBe(false);
  });

  it('reports a live lease holder as busy and reclaims a dead one', async () => {
    await store.install(await pkg(), { acceptCapabilities: true });
    // No wait: the holder here never releases.
    const store0 = new PluginStore({ clatHome: store.clatHome, waitMs: 0 });
    const lock = join(store.root, 'lock');
    await writeFile(lock, String(process.pid));
    await expect(store0.disable('fixture')).rejects.toMatchObject({
      code: 'STORE_BUSY',
      message: `CLAT storage is busy: process ${process.pid} holds ${lock} (another clat command changing the installed plugins); retry once it has finished`,
    });
    // The same pid in a lock written before that process started is another process's (a
    // container restarted, pids wrapped around): reclaimed, or nothing would ever free it.
    const twoDaysAgo = new Date(Date.now() - 2 * 86_400_000);
    await utimes(lock, twoDaysAgo, twoDaysAgo);
    await store.disable('fixture');
    await expect(lstat(lock)).rejects.toMatchObject({ code: 'ENOENT' });
    await writeFile(lock, 'not a lock');
    await expect(store0.disable('fixture')).rejects.toMatchObject({
      code: 'STORE_BUSY',
      message: STORE_BUSY_MESSAGE,
    });
    await writeFile(lock, '999999999');
    await store.disable('fixture');
    await expect(lstat(lock)).rejects.toMatchObject({ code: 'ENOENT' });
  });

  // Issue 14 item 8: a lock file is published complete, and an empty one is never reclaimed on sight.
  it('treats a fresh empty lock as busy and reclaims it only once it is old', async () => {
    await store.install(await pkg(), { acceptCapabilities: true });
    const lock = join(store.root, 'lock');
    await writeFile(lock, '');
    await expect(store.disable('fixture')).rejects.toMatchObject({ code: 'STORE_BUSY' });
    expect(await readFile(lock, 'utf8')).toBe('');
    const old = new Date(Date.now() - 60_000);
    await utimes(lock, old, old);
    await store.disable('fixture');
    await expect(lstat(lock)).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('grants the lease to exactly one of many concurrent acquirers', async () => {
    await store.install(await pkg(), { acceptCapabilities: true });
    for (let round = 0; round < 5; round++) {
      const stores = Array.from({ length: 8 }, () => new PluginStore({ clatHome: store.clatHome }));
      const results = await Promise.allSettled(stores.map((s) => s.acquireLease()));
      const held = results.filter((r) => r.status === 'fulfilled');
      expect(held).toHaveLength(1);
      const lockText = await readFile(join(store.root, 'lock'), 'utf8');
      expect(lockText).toMatch(new RegExp(`^${process.pid}:`));
      for (const r of held)
        await (r as PromiseFulfilledResult<{ release(): Promise<void> }>).value.release();
    }
    expect((await readdir(store.root)).filter((n) => n.startsWith('lock'))).toEqual([]);
  });

  it('recovers from a crash: wipes staging, temp registries and orphan artifacts', async () => {
    await store.install(await pkg(), { acceptCapabilities: true });
    await writeFile(join(store.root, 'staging', 'leftover'), 'x');
    await writeFile(join(store.root, '.registry.json.123.tmp'), '{half');
    // A lock's temp file, as @clat/node-files names it and as CLAT named it before.
    await writeFile(join(store.root, `.lock.123.${'a'.repeat(16)}.tmp`), '123:token');
    await writeFile(join(store.root, 'lock.123.tmp'), '123:token');
    const orphan = join(store.root, 'artifacts', 'fixture', 'a'.repeat(64));
    await writeFixturePackage(orphan);
    await store.disable('fixture');
    expect(await readdir(join(store.root, 'staging'))).toEqual([]);
    expect((await readdir(store.root)).filter((n) => n.endsWith('.tmp'))).toEqual([]);
    await expect(lstat(orphan)).rejects.toMatchObject({ code: 'ENOENT' });
  });
});

describe('PluginStore publisher identity', () => {
  it('records a verified publisher and passes it to the launched server', async () => {
    const keys = minisignKeys();
    const dir = await pkg();
    await signFixturePackage(dir, keys, 'acme');
    await store.install(dir, { acceptCapabilities: true });
    expect((await store.list())[0]).toMatchObject({
      trust: 'publisher/verified',
      publisher: { publisher: 'acme', publicKey: keys.publicKey },
      health: 'ok',
    });
    const [server] = (await installedServerEntries(store.clatHome)).servers;
    expect(server?.transport === 'stdio' && server.env).toMatchObject({
      CLAT_PLUGIN_TRUST: 'publisher/verified',
      CLAT_PLUGIN_PUBLISHER: 'acme',
    });
  });

  it('refuses an update that changes or drops the publisher identity', async () => {
    const keys = minisignKeys();
    const v1 = await pkg({ version: '1' });
    await signFixturePackage(v1, keys, 'acme');
    await store.install(v1, { acceptCapabilities: true });
    const before = await registryText();
    const otherKey = await pkg({ version: '2' });
    await signFixturePackage(otherKey, minisignKeys(), 'acme');
    await expect(store.update(otherKey)).rejects.toMatchObject({
      code: 'IDENTITY_MISMATCH',
      message: expect.stringContaining('uninstall it first'),
    });
    await expect(store.update(await pkg({ version: '3' }))).rejects.toMatchObject({
      code: 'IDENTITY_MISMATCH',
      message: expect.stringContaining('from publisher acme to unsigned'),
    });
    expect(await registryText()).toBe(before);
    const sameKey = await pkg({ version: '4' });
    await signFixturePackage(sameKey, keys, 'acme');
    expect(await store.update(sameKey)).toMatchObject({ version: '4', rollbackVersion: '1' });
  });
});

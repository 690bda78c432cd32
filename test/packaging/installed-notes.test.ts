/**
 * The mcp-notes example as an installed package, end to end: built by its own build script,
 * installed through the real `clat` binary, launched from the verified store entry over the real
 * stdio transport and MCP client core, and refused once its installed bytes are tampered with.
 */
import { existsSync } from 'node:fs';
import { chmod, cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { installedServerEntries, PluginStore } from '@clat/packaging';
import { pidAlive } from '@clat/process';
import { buildPackage } from '@clat-examples/mcp-notes/build';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { McpHarness } from '../mcp-stdio/support.js';
import { type ClatExit, execClat } from '../support/clat-bin.js';

const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));

let work: string;
let packageDir: string;
let home: string;
let harness: McpHarness | undefined;

function clat(...args: string[]): Promise<ClatExit> {
  return execClat(args, { cwd: work, home });
}

beforeAll(async () => {
  if (!existsSync(join(REPO_ROOT, 'apps/clat/dist/main.js'))) {
    throw new Error('apps/clat/dist is missing; run "pnpm build" before the e2e tests');
  }
  work = await mkdtemp(join(tmpdir(), 'clat-installed-notes-'));
  packageDir = (await buildPackage(join(work, 'package'))).dir;
});
afterEach(async () => {
  if (harness !== undefined) {
    const pids = harness.spawnedPids();
    await harness.close();
    for (const pid of pids) expect(pidAlive(pid)).toBe(false);
    harness = undefined;
  }
  const { execFileSync } = await import('node:child_process');
  execFileSync('chmod', ['-R', 'u+rwX', home]);
  await rm(home, { recursive: true, force: true });
});
afterAll(async () => {
  await rm(work, { recursive: true, force: true });
});

describe('mcp-notes as an installed package', () => {
  it('installs through clat, then launches from the immutable artifact over real stdio', async () => {
    home = join(work, 'home-launch');
    const inspected = await clat('plugin', 'inspect', packageDir, '--json');
    expect(inspected.code, inspected.stderr).toBe(0);
    expect(JSON.parse(inspected.stdout)).toMatchObject({
      id: 'mcp-notes',
      runtime: 'mcp-stdio',
      capabilities: ['tools', 'prompts'],
      prompts: ['notes-usage'],
    });

    const refused = await clat('plugin', 'install', packageDir);
    expect(refused.code).toBe(3);
    expect(refused.stderr).toContain('requests capabilities tools, prompts');
    const installed = await clat('plugin', 'install', packageDir, '--accept-capabilities');
    expect(installed.code, installed.stderr).toBe(0);
    expect(installed.stdout).not.toContain('does not declare capability');
    const [row] = JSON.parse((await clat('plugin', 'list', '--json')).stdout);
    expect(row).toMatchObject({ id: 'mcp-notes', enabled: true, health: 'ok' });
    const artifactDir = new PluginStore({ clatHome: home }).artifactDir(
      'mcp-notes',
      row.treeSha256,
    );

    // Inspecting the installed id (no such path in the working directory) shows its active
    // version; a name that is neither says so, and an npm name gets its npm: form.
    const byId = await clat('plugin', 'inspect', 'mcp-notes');
    expect(byId.code, byId.stderr).toBe(0);
    expect(byId.stdout).toContain(
      `Installed, its active version (${artifactDir}):\nPackage mcp-notes (checked by CLAT)`,
    );
    expect(byId.stdout).toContain(`tree          sha256 ${row.treeSha256}`);
    const byIdJson = JSON.parse((await clat('plugin', 'inspect', 'mcp-notes', '--json')).stdout);
    expect(byIdJson).toMatchObject({ id: 'mcp-notes', treeSha256: row.treeSha256 });
    // A name of Object's prototype is no installed package, and nothing is written for it
    // (`roots constructor off` wrote a broken record that disabled every plugin).
    const registryFile = join(home, 'plugin-store', 'registry.json');
    const registryBefore = await readFile(registryFile, 'utf8');
    for (const args of [
      ['roots', 'constructor', 'off'],
      ['uninstall', '__proto__'],
      ['update', 'constructor'],
      ['repair', '__proto__'],
    ]) {
      const refused = await clat('plugin', ...args);
      expect(refused.code, args.join(' ')).toBe(1);
      expect(refused.stderr).toMatch(
        /^clat: (constructor|__proto__) is (not installed|neither an installed package \(installed: mcp-notes\) nor a file or directory here) \[PACKAGE_STATE\]\n$/,
      );
    }
    expect(await readFile(registryFile, 'utf8')).toBe(registryBefore);
    const missing = await clat('plugin', 'inspect', 'no-such-notes');
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain(
      `"no-such-notes" is no file or directory in ${work}; an npm package is named with npm: in front: clat plugin inspect npm:no-such-notes`,
    );

    const entries = await installedServerEntries(home);
    expect(entries.issues).toEqual([]);
    expect(entries.prompts.map((p) => p.name)).toEqual(['notes-usage']);
    const [server] = entries.servers;
    if (server?.transport !== 'stdio') throw new Error('expected one stdio server');
    expect(server.cwd).toBe(artifactDir);
    expect(server.command).toBe(join(artifactDir, 'server.mjs'));

    harness = new McpHarness();
    const { mounted } = await harness.mount(server.name, {
      command: server.command,
      args: server.args,
      env: server.env,
      cwd: server.cwd,
    });
    const status = mounted.status();
    expect(status.state, status.failure).toBe('connected');
    expect(status.era).toBe('modern');
    expect(harness.toolNames('mcp-notes')).toEqual([
      'mcp_mcp_notes_add_note',
      'mcp_mcp_notes_delete_note',
      'mcp_mcp_notes_get_note',
      'mcp_mcp_notes_list_notes',
      'mcp_mcp_notes_search_notes',
    ]);
    const effects = Object.fromEntries(harness.registry.list().map((t) => [t.name, t.effect]));
    expect(effects).toMatchObject({
      mcp_mcp_notes_add_note: 'write',
      mcp_mcp_notes_delete_note: 'destructive',
      mcp_mcp_notes_list_notes: 'external-read',
    });
    const added = await harness.call('mcp_mcp_notes_add_note', {
      title: 'Installed',
      body: 'written from the artifact cwd',
    });
    expect(added.isError ?? false).toBe(false);
    // State goes to CLAT_PLUGIN_DATA, never into the digest-checked artifact.
    const notes = JSON.parse(
      await readFile(join(home, 'plugin-data', 'mcp-notes', 'notes.json'), 'utf8'),
    );
    expect(notes.notes.map((n: { title: string }) => n.title)).toEqual(['Installed']);
    expect(JSON.parse((await clat('plugin', 'list', '--json')).stdout)[0].health).toBe('ok');
  });

  it('detects tampered installed bytes before launch; the suggested repair and a reinstall recover', async () => {
    home = join(work, 'home-tamper');
    expect((await clat('plugin', 'install', packageDir, '--accept-capabilities')).code).toBe(0);
    const [row] = JSON.parse((await clat('plugin', 'list', '--json')).stdout);
    const entry = join(
      new PluginStore({ clatHome: home }).artifactDir('mcp-notes', row.treeSha256),
      'server.mjs',
    );
    await chmod(entry, 0o700);
    await writeFile(entry, '#!/usr/bin/env node\nconsole.log("tampered");\n');

    const entries = await installedServerEntries(home);
    expect(entries.servers).toEqual([]);
    const hint = 'run "clat plugin repair mcp-notes"';
    expect(entries.issues).toEqual([
      {
        id: 'mcp-notes',
        message: `server.mjs of installed package mcp-notes was changed; ${hint}`,
      },
    ]);
    const listed = await clat('plugin', 'list');
    expect(listed.stdout).toContain(
      `server.mjs of installed package mcp-notes was changed; ${hint}`,
    );
    // `clat mcp` sends the person to the repair, not to edit registry.json (which is fine).
    const status = await clat('mcp', '--trust');
    expect(status.stdout).toContain('Config issues (1 entry skipped; each says what to do):');
    expect(status.stdout).toContain(hint);
    expect(status.stdout).not.toContain('fix ');
    const enable = await clat('plugin', 'enable', 'mcp-notes');
    expect(enable.code).toBe(1);
    expect(enable.stderr).toContain(`${hint} [ARTIFACT_TAMPERED]`);

    // The command every message suggests works.
    const repaired = await clat('plugin', 'repair', 'mcp-notes');
    expect(repaired.code, repaired.stderr).toBe(0);
    expect(repaired.stdout).toContain(
      'Repaired active: server.mjs of installed package mcp-notes was changed',
    );
    const healed = await installedServerEntries(home);
    expect(healed.servers.map((s) => s.name)).toEqual(['mcp-notes']);

    // Installing the same version again is accepted too, and also restores the bytes.
    await chmod(entry, 0o700);
    await writeFile(entry, 'tampered again');
    const reinstalled = await clat('plugin', 'install', packageDir);
    expect(reinstalled.code, reinstalled.stderr).toBe(0);
    expect((await installedServerEntries(home)).servers.map((s) => s.name)).toEqual(['mcp-notes']);
  });

  it('registers no tools of a package whose manifest does not declare capability tools', async () => {
    // Install asks consent for the declared capabilities only: without `tools` it asks nothing
    // about tools, so the server's tools must not reach the model either.
    home = join(work, 'home-no-tools');
    const copy = join(work, 'no-tools');
    await cp(packageDir, copy, { recursive: true });
    const manifestFile = join(copy, 'clat-plugin.json');
    const manifest = JSON.parse(await readFile(manifestFile, 'utf8'));
    manifest.capabilities.tools = false;
    await writeFile(manifestFile, JSON.stringify(manifest, null, 2));
    const installed = await clat('plugin', 'install', copy, '--accept-capabilities');
    expect(installed.code, installed.stderr).toBe(0);
    expect(installed.stdout).not.toMatch(/Granted capabilities:.*tools/);
    // Not refused (a package may bring only prompts), but said at install, not found out later.
    expect(installed.stdout).toContain(
      'mcp-notes does not declare capability "tools": CLAT offers none of its tools (a package with tools sets "capabilities": {"tools": true} in clat-plugin.json)\n',
    );

    const tools = await clat('tools', '--json', '--trust');
    const names = (JSON.parse(tools.stdout) as { tools: { name: string }[] }).tools.map(
      (tool) => tool.name,
    );
    expect(names.filter((name) => name.startsWith('mcp_mcp_notes'))).toEqual([]);
    expect(names).toContain('read_file');
    // Shown in `clat mcp` beside the mcp.json servers, but managed by `clat plugin`: the
    // refusal names the command that works.
    const toggled = await clat('mcp', 'disable', 'mcp-notes');
    expect(toggled.code).toBe(1);
    expect(toggled.stderr).toContain(
      '"mcp-notes" is an installed plugin, not an mcp.json entry: run "clat plugin disable mcp-notes"',
    );
    // Also with a scope's flags before the name, and for get.
    const scoped = await clat('mcp', 'remove', '--scope', 'project', 'mcp-notes');
    expect(scoped.code).toBe(1);
    expect(scoped.stderr).toContain(
      '"mcp-notes" is an installed plugin, not an mcp.json entry: run "clat plugin uninstall mcp-notes"',
    );
    const got = await clat('mcp', 'get', 'mcp-notes');
    expect(got.code).toBe(1);
    expect(got.stderr).toContain('run "clat plugin list"');
    const disabled = await clat('plugin', 'disable', 'mcp-notes');
    expect(disabled.code, disabled.stderr).toBe(0);
    expect((await clat('plugin', 'enable', 'mcp-notes')).code).toBe(0);
    const listed = await clat('tools', 'mcp-notes', '--trust');
    expect(listed.stdout).toBe(
      'server "mcp-notes" has no tools\n  5 tools of "mcp-notes" left out because its package manifest does not declare capability `tools`\n',
    );
    expect(listed.code).toBe(0);
    const called = await clat('call', 'mcp_mcp_notes_list_notes', '{}', '--trust');
    expect(called.code).not.toBe(0);
    expect(called.stderr).toContain('is not registered');
    const status = await clat('mcp', '--trust');
    expect(status.stdout).toMatch(
      /5 tools of "?mcp-notes"? left out because its package manifest does not declare capability `tools`/,
    );
    // Its prompt, declared and granted, still comes with it.
    expect(status.stdout).toMatch(/mcp-notes\s+stdio\s+connected/);
  });

  it('tells another package of the same id from a new version, and says what an update replaced', async () => {
    home = join(work, 'home-same-id');
    expect((await clat('plugin', 'install', packageDir, '--accept-capabilities')).code).toBe(0);
    // Another author's package that happens to take the id "mcp-notes".
    const other = join(work, 'other-notes');
    await cp(packageDir, other, { recursive: true });
    const manifestFile = join(other, 'clat-plugin.json');
    const manifest = JSON.parse(await readFile(manifestFile, 'utf8'));
    manifest.name = 'Other Notes';
    manifest.version = '9.0.0';
    await writeFile(manifestFile, JSON.stringify(manifest, null, 2));
    const refused = await clat('plugin', 'install', other, '--accept-capabilities');
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(
      `mcp-notes is already installed as "${JSON.parse(await readFile(join(packageDir, 'clat-plugin.json'), 'utf8')).name}"`,
    );
    expect(refused.stderr).toContain(
      `and this package, "Other Notes" 9.0.0 (mcp-stdio), has the same id: give one of them another "id" in its clat-plugin.json, or, to replace the installed one with it (its data in plugin-data/mcp-notes stays), run "clat plugin update ${other}"`,
    );
    const updated = await clat('plugin', 'update', other, '--accept-capabilities');
    expect(updated.code, updated.stderr).toBe(0);
    expect(updated.stdout).toContain('Updated mcp-notes 9.0.0');
    expect(updated.stdout).toContain(
      'a package of another name with the same id; "clat plugin rollback mcp-notes" brings it back',
    );
    expect((await clat('plugin', 'rollback', 'mcp-notes')).code).toBe(0);
    // A mistyped id is named as one, not as a missing path.
    const typo = await clat('plugin', 'update', 'mcp-note');
    expect(typo.code).toBe(1);
    expect(typo.stderr).toContain(
      'mcp-note is neither an installed package (installed: mcp-notes) nor a file or directory here',
    );
  });

  it('says when an mcp.json entry and an installed plugin share a name, from either side', async () => {
    // mcp.json entries come first: the plugin would be listed as replaced but never started.
    home = join(work, 'home-shadow');
    const mcpFile = join(home, 'mcp.json');
    const added = await clat('mcp', 'add', 'mcp-notes', '--', process.execPath, '-e', '1');
    expect(added.code, added.stderr).toBe(0);
    expect(added.stdout).not.toContain('installed plugin');
    const installed = await clat('plugin', 'install', packageDir, '--accept-capabilities');
    expect(installed.code, installed.stderr).toBe(0);
    expect(installed.stdout).toContain(
      `The entry "mcp-notes" of ${mcpFile} takes its place: CLAT starts that entry instead while it exists ("clat mcp remove mcp-notes" lets the plugin start)\n`,
    );
    const status = await clat('mcp', '--trust');
    expect(status.stdout).toContain(
      'installed package "mcp-notes" is replaced by the same-named entry before it',
    );

    // The command the note names works, and the plugin starts again.
    expect((await clat('mcp', 'remove', 'mcp-notes')).code).toBe(0);
    const restored = await clat('mcp', '--trust');
    expect(restored.stdout).not.toContain('is replaced by');
    expect(restored.stdout).toMatch(/mcp-notes\s+stdio\s+connected/);

    // From the other side: adding the entry over an installed plugin says so.
    const again = await clat('mcp', 'add', 'mcp-notes', '--', process.execPath, '-e', '1');
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toContain(
      'It takes the place of the installed plugin "mcp-notes", which CLAT no longer starts while this entry exists; "clat mcp remove mcp-notes" brings the plugin back\n',
    );
  });

  it('says at inspect and install that a sensitive setting is passed on the command line', async () => {
    home = join(work, 'home-args');
    const copy = join(work, 'token-in-args');
    await cp(packageDir, copy, { recursive: true });
    const manifestFile = join(copy, 'clat-plugin.json');
    const manifest = JSON.parse(await readFile(manifestFile, 'utf8'));
    manifest.userConfig = { token: { type: 'string', title: 'Token', sensitive: true } };
    // A launch variable, not a template: CLAT substitutes it when it starts the server.
    manifest.runtime.args = ['--token=$' + '{config.token}'];
    await writeFile(manifestFile, JSON.stringify(manifest, null, 2));
    const note =
      'Note: its sensitive setting "token" is passed in the server\'s command-line arguments, which other users of this machine can read (ps); a package can pass it in "runtime.env" instead\n';
    const inspected = await clat('plugin', 'inspect', copy);
    expect(inspected.code, inspected.stderr).toBe(0);
    expect(inspected.stdout).toContain(note);
    const installed = await clat('plugin', 'install', copy, '--accept-capabilities');
    expect(installed.code, installed.stderr).toBe(0);
    expect(installed.stdout).toContain(note);
    // The shipped package passes nothing sensitive on its command line.
    expect((await clat('plugin', 'inspect', packageDir)).stdout).not.toContain('Note:');
  });

  it('names the --config flag for a required config key, and that flag installs it', async () => {
    home = join(work, 'home-config-schema');
    const copy = join(work, 'schema-config');
    await cp(packageDir, copy, { recursive: true });
    const manifestFile = join(copy, 'clat-plugin.json');
    const manifest = JSON.parse(await readFile(manifestFile, 'utf8'));
    manifest.configSchema = {
      type: 'object',
      properties: { region: { type: 'string' } },
      required: ['region'],
    };
    await writeFile(manifestFile, JSON.stringify(manifest, null, 2));
    const refused = await clat('plugin', 'install', copy, '--accept-capabilities');
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(
      'mcp-notes needs a config with "region": give --config region=<value>, or the whole config with --config-json or --config-file [CONFIG_INVALID]',
    );
    const installed = await clat(
      'plugin',
      'install',
      copy,
      '--accept-capabilities',
      '--config',
      'region=eu',
    );
    expect(installed.code, installed.stderr).toBe(0);
  });

  it('calls an update to an older version a downgrade', async () => {
    home = join(work, 'home-downgrade');
    expect((await clat('plugin', 'install', packageDir, '--accept-capabilities')).code).toBe(0);
    const installed = JSON.parse(await readFile(join(packageDir, 'clat-plugin.json'), 'utf8'));
    const older = join(work, 'older-notes');
    await cp(packageDir, older, { recursive: true });
    const manifestFile = join(older, 'clat-plugin.json');
    await writeFile(manifestFile, JSON.stringify({ ...installed, version: '0.0.9' }, null, 2));
    const downgraded = await clat('plugin', 'update', older, '--accept-capabilities');
    expect(downgraded.code, downgraded.stderr).toBe(0);
    expect(downgraded.stdout).toMatch(
      new RegExp(
        `^Downgraded mcp-notes to 0\\.0\\.9 from ${installed.version.replaceAll('.', '\\.')} \\(tree [0-9a-f]{12}\\)\n`,
      ),
    );
    // Back up again is an update.
    const upgraded = await clat('plugin', 'update', packageDir, '--accept-capabilities');
    expect(upgraded.stdout).toContain(`Updated mcp-notes ${installed.version} (tree `);
  });

  it('says an uninstall keeps the data directory, and --purge removes it, also afterwards', async () => {
    home = join(work, 'home-purge');
    const data = join(home, 'plugin-data', 'mcp-notes');
    const addNote = () =>
      clat(
        'call',
        'mcp_mcp_notes_add_note',
        'title=kept',
        'body=b',
        '--trust',
        '--mode',
        'full-access',
      );
    // A server that never wrote its data directory leaves nothing behind at uninstall.
    expect((await clat('plugin', 'install', packageDir, '--accept-capabilities')).code).toBe(0);
    expect((await clat('tools', '--trust')).code).toBe(0);
    expect(existsSync(data)).toBe(true);
    // The list says what its HEALTH covers, and where a server's start shows.
    expect((await clat('plugin', 'list')).stdout).toMatch(
      /mcp-notes .* ok\nHEALTH checks the installed files; "clat mcp" shows whether each server starts\n$/,
    );
    const unused = await clat('plugin', 'uninstall', 'mcp-notes');
    expect(unused.stdout).toBe('Uninstalled mcp-notes. Restart CLAT to apply.\n');
    expect(existsSync(data)).toBe(false);

    expect((await clat('plugin', 'install', packageDir, '--accept-capabilities')).code).toBe(0);
    const added = await addNote();
    expect(added.code, added.stderr).toBe(0);
    const uninstalled = await clat('plugin', 'uninstall', 'mcp-notes');
    expect(uninstalled.code, uninstalled.stderr).toBe(0);
    expect(uninstalled.stdout).toBe(
      `Uninstalled mcp-notes. Restart CLAT to apply.\nIts data in ${data} is kept for a reinstall; "clat plugin uninstall mcp-notes --purge" removes it\n`,
    );
    // A reinstall finds it.
    expect((await clat('plugin', 'install', packageDir, '--accept-capabilities')).code).toBe(0);
    const listed = await clat('call', 'mcp_mcp_notes_list_notes', '--trust');
    expect(listed.stdout).toContain('kept');
    expect((await clat('plugin', 'uninstall', 'mcp-notes')).code).toBe(0);

    // The command the note names works on the package it just uninstalled.
    const purged = await clat('plugin', 'uninstall', 'mcp-notes', '--purge');
    expect(purged.code, purged.stderr).toBe(0);
    expect(purged.stdout).toBe(`Removed the data of mcp-notes (${data})\n`);
    expect(existsSync(data)).toBe(false);
    const nothing = await clat('plugin', 'uninstall', 'mcp-notes', '--purge');
    expect(nothing.code).toBe(1);
    expect(nothing.stderr).toContain('mcp-notes is not installed');
    // A typed path is no package id: nothing outside plugin-data is touched.
    for (const path of ['..', '../plugin-data', '.']) {
      const refused = await clat('plugin', 'uninstall', path, '--purge');
      expect(refused.code, path).toBe(1);
      expect(refused.stdout).toBe('');
    }
    expect(existsSync(join(home, 'plugin-store'))).toBe(true);
    expect(existsSync(join(home, 'plugin-data'))).toBe(true);

    // Installed, --purge removes package and data in one go.
    expect((await clat('plugin', 'install', packageDir, '--accept-capabilities')).code).toBe(0);
    expect((await addNote()).code).toBe(0);
    const both = await clat('plugin', 'uninstall', 'mcp-notes', '--purge');
    expect(both.stdout).toBe(
      `Uninstalled mcp-notes. Restart CLAT to apply.\nRemoved its data (${data})\n`,
    );
    expect(existsSync(data)).toBe(false);
    const misplaced = await clat('plugin', 'list', '--purge');
    expect(misplaced.code).toBe(2);
    expect(misplaced.stderr).toContain('--purge only applies to uninstall');
  });

  it('packs a deterministic .clatpkg with the binary and installs from it', async () => {
    home = join(work, 'home-pack');
    const a = join(work, 'notes-a.clatpkg');
    const b = join(work, 'notes-b.clatpkg');
    expect((await clat('plugin', 'pack', packageDir, '--output', a)).code).toBe(0);
    expect((await clat('plugin', 'pack', packageDir, '--output', b)).code).toBe(0);
    expect((await readFile(a)).equals(await readFile(b))).toBe(true);
    const installed = await clat('plugin', 'install', a, '--accept-capabilities');
    expect(installed.code, installed.stderr).toBe(0);
    const entries = await installedServerEntries(home);
    expect(entries.servers.map((s) => s.name)).toEqual(['mcp-notes']);
  });
});

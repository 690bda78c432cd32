/**
 * Installing a real npm MCP server through the `clat` binary, network-free: the dependency
 * closure of `@modelcontextprotocol/server-memory` is served by the local registry fixture and
 * fetched by the real npm client. A tool writes state into the private data dir; a fresh `clat`
 * sees it; update and rollback move between two versions keeping it; a server writing into its
 * installed directory does not brick it, and the suggested repair command restores it.
 */
import { chmod, mkdir, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ClatExit, execClat } from '../support/clat-bin.js';
import {
  type NpmRegistryFixture,
  type PublishedVersion,
  resolveInstalledPackage,
} from '../support/npm-registry.js';
import { type NpmWorld, openNpmWorld } from '../support/npm-world.js';

const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));
const ID = 'server-memory';
const ENV_SECRET = 'sk-proj-EnvValue0123456789';

let world: NpmWorld;
let work: string;
let home: string;
let registry: NpmRegistryFixture;
let v1: PublishedVersion;

function clat(...args: string[]): Promise<ClatExit> {
  return world.clat(...args);
}

async function toolName(suffix: string): Promise<string> {
  const tools = await clat('tools', '--json');
  expect(tools.code, tools.stderr).toBe(0);
  const names = (JSON.parse(tools.stdout) as { tools: { name: string }[] }).tools.map(
    (t) => t.name,
  );
  const name = names.find(
    (candidate) => candidate.endsWith(suffix) && candidate.includes('memory'),
  );
  if (name === undefined) throw new Error(`no ${suffix} tool in ${names.join(', ')}`);
  return name;
}

/** The --env names `clat plugin list --json` shows for package `id` (never their values). */
async function envNamesOf(id: string): Promise<string[] | undefined> {
  const list = await clat('plugin', 'list', '--json');
  const rows = JSON.parse(list.stdout) as { id: string; source: { env?: string[] } }[];
  return rows.find((row) => row.id === id)?.source.env;
}

/**
 * A dependency-free legacy MCP server package in `<work>/<name>`: the fixture library beside a
 * `server.mjs` of `lines` (package.json is the caller's).
 */
async function legacyServerDir(name: string, lines: string[]): Promise<string> {
  const dir = join(work, name);
  await mkdir(dir, { recursive: true });
  await writeFile(
    join(dir, 'lib.mjs'),
    await readFile(join(REPO_ROOT, 'test/fixtures/mcp-servers/legacy-lib.mjs')),
  );
  await writeFile(join(dir, 'server.mjs'), ['#!/usr/bin/env node', ...lines, ''].join('\n'));
  return dir;
}

/** Publishes a {@link legacyServerDir} as `npmName` 1.0.0, whose one bin runs its server.mjs. */
async function publishServer(dir: string, npmName: string): Promise<void> {
  const bin = { [npmName.slice(npmName.indexOf('/') + 1)]: 'server.mjs' };
  await writeFile(
    join(dir, 'package.json'),
    JSON.stringify({ name: npmName, version: '1.0.0', type: 'module', bin }),
  );
  registry.publishDir(dir);
}

beforeAll(async () => {
  world = await openNpmWorld('clat-npm-install-');
  ({ work, home, registry } = world);
  v1 = registry.publishClosure(resolveInstalledPackage('@modelcontextprotocol/server-memory'));
});

afterAll(async () => {
  await world?.close();
});

describe('clat plugin install npm:<name>', () => {
  it('installs a real server with its dependencies, keeps state across restarts, updates and rolls back', async () => {
    const spec = `npm:@modelcontextprotocol/server-memory@^${v1.version.split('.')[0]}.0.0`;
    // Headless, a tools-only package needs --yes; the message says so before anything is
    // fetched, and that command works.
    const refused = await clat('plugin', 'install', spec);
    expect(refused.code).toBe(3);
    expect(refused.stderr).toBe(
      'clat: npm:@modelcontextprotocol/server-memory would provide tools (capability tools), and there is no terminal to ask on; rerun with --yes to grant it [CAPABILITY_EXPANSION]\n',
    );
    const installed = await clat(
      'plugin',
      'install',
      spec,
      '--yes',
      '--env',
      'MEMORY_FILE_PATH=${CLAT_PLUGIN_DATA}/memory.jsonl',
      '--env',
      `MEMORY_API_TOKEN=${ENV_SECRET}`,
    );
    expect(installed.code, installed.stderr).toBe(0);
    expect(installed.stdout).toContain(`Installed ${ID} ${v1.version}`);

    // --env values are often keys: listed by name only, like `clat mcp list` does.
    const list = await clat('plugin', 'list', '--json');
    expect(list.stdout).not.toContain(ENV_SECRET);
    // The installed id inspects its active version (never the values of its settings).
    const inspected = await clat('plugin', 'inspect', ID);
    expect(inspected.code, inspected.stderr).toBe(0);
    expect(inspected.stdout).toContain(`Package ${ID} (checked by CLAT)`);
    expect(inspected.stdout).toContain('runtime       mcp-stdio');
    expect(inspected.stdout).not.toContain(ENV_SECRET);
    const [row] = JSON.parse(list.stdout) as Record<string, unknown>[];
    expect(row).toMatchObject({
      id: ID,
      version: v1.version,
      health: 'ok',
      source: {
        kind: 'npm',
        name: '@modelcontextprotocol/server-memory',
        version: v1.version,
        range: `^${v1.version.split('.')[0]}.0.0`,
        integrity: v1.integrity,
        registry: registry.url,
        bin: 'mcp-server-memory',
        env: ['MEMORY_FILE_PATH', 'MEMORY_API_TOKEN'],
      },
    });
    // npm ran against the fixture only, and nothing but the registry was asked for.
    expect(registry.requests.some((r) => r.startsWith('GET /@modelcontextprotocol/sdk'))).toBe(
      true,
    );

    const create = await toolName('create_entities');
    const wrote = await clat(
      'call',
      create,
      JSON.stringify({
        entities: [{ name: 'clat', entityType: 'tool', observations: ['installed from npm'] }],
      }),
      '--mode',
      'full-access',
    );
    expect(wrote.code, wrote.stderr).toBe(0);
    const data = join(home, 'plugin-data', ID);
    expect((await stat(data)).mode & 0o777).toBe(0o700);
    expect(await readFile(join(data, 'memory.jsonl'), 'utf8')).toContain('installed from npm');

    // A fresh clat process (a restart) sees the state.
    const read = await toolName('read_graph');
    const again = await clat('call', read, '{}', '--mode', 'full-access');
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toContain('installed from npm');

    // A second version appears; update follows the recorded range, rollback returns.
    const v2 = registry.publishDir(resolveInstalledPackage('@modelcontextprotocol/server-memory'), {
      packageJson: { version: `${v1.version.split('.')[0]}.99.0` },
    });
    const updated = await clat('plugin', 'update', ID);
    expect(updated.code, updated.stderr).toBe(0);
    expect(updated.stdout).toContain(`Updated ${ID} ${v2.version}`);
    expect(updated.stdout).toContain(`Rollback: ${v1.version}`);
    const current = await clat('plugin', 'update', ID);
    expect(current.stdout).toBe(
      `${ID} is already at ${v2.version}, the newest version its range allows\n`,
    );
    const afterUpdate = await clat('call', read, '{}', '--mode', 'full-access');
    expect(afterUpdate.stdout).toContain('installed from npm');
    const rolled = await clat('plugin', 'rollback', ID);
    expect(rolled.code, rolled.stderr).toBe(0);
    expect(rolled.stdout).toContain(`Rolled back ${ID} to ${v1.version}`);
    const rows = JSON.parse((await clat('plugin', 'list', '--json')).stdout) as {
      version: string;
      rollbackVersion: string;
    }[];
    expect(rows[0]).toMatchObject({ version: v1.version, rollbackVersion: v2.version });
  }, 900_000);

  it('does not brick a package whose directory a server wrote into; the suggested repair works', async () => {
    const registryJson = JSON.parse(
      await readFile(join(home, 'plugin-store', 'registry.json'), 'utf8'),
    ) as { packages: Record<string, { active: { artifact: string } }> };
    const artifact = registryJson.packages[ID]?.active.artifact as string;
    const dir = join(home, 'plugin-store', 'artifacts', ID, artifact);
    const serverDir = join(dir, 'node_modules/@modelcontextprotocol/server-memory/dist');
    // What server-memory does without MEMORY_FILE_PATH: state next to its own code.
    await writeFile(join(serverDir, 'memory.jsonl'), '{"type":"entity"}\n');
    const listed = await clat('plugin', 'list');
    expect(listed.stdout).toContain(
      `ok, but 1 file(s) were added to its directory (node_modules/@modelcontextprotocol/server-memory/dist/memory.jsonl); "clat plugin repair ${ID}" moves them to its data directory`,
    );
    // Still mounted and callable: the shipped files are verified, the added file only reported.
    const read = await toolName('read_graph');
    expect((await clat('call', read, '{}', '--mode', 'full-access')).code).toBe(0);

    // A changed shipped file is tampering: the package is not launched, and the message names
    // a command that works.
    const entry = join(serverDir, 'index.js');
    await chmod(entry, 0o600);
    await writeFile(entry, 'process.exit(1)\n');
    const health = JSON.parse((await clat('plugin', 'list', '--json')).stdout) as {
      health: string;
    }[];
    expect(health[0]?.health).toBe(
      `node_modules/@modelcontextprotocol/server-memory/dist/index.js of installed package ${ID} was changed; run "clat plugin repair ${ID}"`,
    );
    const status = await clat('mcp');
    expect(status.stdout + status.stderr).toContain(`clat plugin repair ${ID}`);

    const repaired = await clat('plugin', 'repair', ID);
    expect(repaired.code, repaired.stderr).toBe(0);
    expect(repaired.stdout).toContain(
      'Repaired active: node_modules/@modelcontextprotocol/server-memory/dist/index.js',
    );
    expect((await readdir(serverDir)).sort()).toEqual(['index.js']);
    // The knowledge graph the server wrote beside itself is not lost: it moved to its data dir.
    const moved =
      /moved 1 added file\(s\) \(node_modules\/@modelcontextprotocol\/server-memory\/dist\/memory\.jsonl\) to (\S+)/.exec(
        repaired.stdout,
      )?.[1];
    expect(moved?.startsWith(join(home, 'plugin-data', ID, 'repaired-'))).toBe(true);
    expect(
      await readFile(
        join(moved as string, 'node_modules/@modelcontextprotocol/server-memory/dist/memory.jsonl'),
        'utf8',
      ),
    ).toBe('{"type":"entity"}\n');
    const healthy = JSON.parse((await clat('plugin', 'list', '--json')).stdout) as {
      health: string;
    }[];
    expect(healthy[0]?.health).toBe('ok');
    const works = await clat('call', read, '{}', '--mode', 'full-access');
    expect(works.code, works.stderr).toBe(0);
    expect(works.stdout).toContain('installed from npm');
  }, 300_000);

  it('names a server called only "mcp" after its scope, updates by npm name, names it in its failure, and fixes its env and bin in place', async () => {
    // A dependency-free server published as @acme/mcp, the way @playwright/mcp is named.
    const dir = await legacyServerDir('acme-mcp', [
      "import { BASIC_TOOLS, serveLegacy } from './lib.mjs';",
      "if (process.env.ACME_FAIL) { console.error('acme: refusing to start'); process.exit(1); }",
      "serveLegacy({ name: 'acme', tools: BASIC_TOOLS });",
    ]);
    const writeManifest = (version: string, bin: Record<string, string>) =>
      writeFile(
        join(dir, 'package.json'),
        JSON.stringify({ name: '@acme/mcp', version, type: 'module', bin }),
      );
    await writeManifest('1.2.0', { 'acme-mcp': 'server.mjs' });
    registry.publishDir(dir);

    const installed = await clat('plugin', 'install', 'npm:@acme/mcp', '--yes');
    expect(installed.code, installed.stderr).toBe(0);
    expect(installed.stdout).toContain('Installed acme-mcp 1.2.0');
    // Said before npm runs, on stderr: stdout keeps only the result.
    expect(installed.stderr).toBe('Fetching @acme/mcp@latest with npm (its dependencies too)…\n');
    expect(installed.stdout).not.toContain('Fetching');
    const tools = await clat('tools', '--json');
    const names = (JSON.parse(tools.stdout) as { tools: { name: string; source: string }[] }).tools
      .filter((tool) => tool.name.includes('acme'))
      .map((tool) => tool.name);
    expect(names).toContain('mcp_acme_mcp_echo');
    const echoed = await clat('call', 'mcp_acme_mcp_echo', '{"text":"named"}');
    expect(echoed.code, echoed.stderr).toBe(0);
    expect(echoed.stdout).toContain('named');
    expect((await clat('plugin', 'uninstall', 'acme-mcp')).code).toBe(0);

    // `update npm:<name>` finds the package installed from that name, whatever its id.
    const custom = await clat('plugin', 'install', 'npm:@acme/mcp', '--yes', '--id', 'acme');
    expect(custom.code, custom.stderr).toBe(0);
    registry.publishDir(dir, { packageJson: { version: '1.3.0' } });
    const updated = await clat('plugin', 'update', 'npm:@acme/mcp');
    expect(updated.code, updated.stderr).toBe(0);
    expect(updated.stdout).toContain('Updated acme 1.3.0');
    expect(updated.stdout).toContain('Rollback: 1.2.0');
    // Installed twice under two ids, the name alone is ambiguous: the error names both.
    expect((await clat('plugin', 'install', 'npm:@acme/mcp', '--yes')).code).toBe(0);
    const ambiguous = await clat('plugin', 'update', 'npm:@acme/mcp');
    expect(ambiguous.code).toBe(2);
    expect(ambiguous.stderr).toContain(
      '@acme/mcp is installed as acme and acme-mcp; name the one to update: clat plugin update acme',
    );
    const byId = await clat('plugin', 'update', 'acme-mcp');
    expect(byId.code, byId.stderr).toBe(0);

    // A failing server's error names it: the id the store sets in its env is no secret, while
    // the --env values stay redacted.
    const broken = await clat(
      'plugin',
      'install',
      'npm:@acme/mcp',
      '--yes',
      '--id',
      'acme-broken',
      '--env',
      'ACME_FAIL=1',
      '--env',
      'ACME_TOKEN=acme-secret-0123456789',
    );
    expect(broken.code, broken.stderr).toBe(0);
    const status = await clat('mcp', '--json');
    const failure = (
      JSON.parse(status.stdout) as { servers: { name: string; failure?: string }[] }
    ).servers.find((server) => server.name === 'acme-broken')?.failure;
    expect(failure).toContain(
      'MCP server "acme-broken" failed both handshakes: modern probe and legacy initialize both: closed the connection: exited with code 1 (stderr: acme: refusing to start)',
    );
    expect(failure).not.toContain('[REDACTED]');
    expect(status.stdout).not.toContain('acme-secret-0123456789');

    // The environment is fixed in place: NAME= removes a variable, the others are kept.
    const fixed = await clat('plugin', 'update', 'acme-broken', '--env', 'ACME_FAIL=');
    expect(fixed.code, fixed.stderr).toBe(0);
    expect(fixed.stdout).toContain('Updated acme-broken 1.3.0');
    expect(fixed.stdout).toContain('Rollback: 1.3.0');
    expect(await envNamesOf('acme-broken')).toEqual(['ACME_TOKEN']);
    const healthy = await clat('call', 'mcp_acme_broken_echo', '{"text":"fixed"}');
    expect(healthy.code, healthy.stderr).toBe(0);
    expect(healthy.stdout).toContain('fixed');

    // A version that renames its bin: the update names the bins there are, and --bin picks one
    // (the environment stays).
    await writeFile(
      join(dir, 'alt.mjs'),
      [
        '#!/usr/bin/env node',
        "import { serveLegacy, text } from './lib.mjs';",
        'const echo = { type: "object", properties: { text: { type: "string" } } };',
        'const readOnly = { readOnlyHint: true, openWorldHint: false };',
        "const handler = (args) => text('alt: ' + args.text);",
        "serveLegacy({ name: 'acme-alt', tools: [{ name: 'echo', inputSchema: echo, annotations: readOnly, handler }] });",
        '',
      ].join('\n'),
    );
    await writeManifest('1.3.1', { 'acme-server': 'server.mjs', 'acme-alt': 'alt.mjs' });
    registry.publishDir(dir);
    const renamed = await clat('plugin', 'update', 'acme-broken');
    expect(renamed.code).toBe(1);
    expect(renamed.stderr).toContain(
      '@acme/mcp@1.3.1 has no bin "acme-mcp" (it has acme-alt, acme-server); choose one with --bin <name>',
    );
    const switched = await clat('plugin', 'update', 'acme-broken', '--bin', 'acme-alt');
    expect(switched.code, switched.stderr).toBe(0);
    expect(switched.stdout).toContain('Updated acme-broken 1.3.1');
    const alt = await clat('call', 'mcp_acme_broken_echo', '{"text":"switched"}');
    expect(alt.code, alt.stderr).toBe(0);
    expect(alt.stdout).toContain('alt: switched');
    expect(await envNamesOf('acme-broken')).toEqual(['ACME_TOKEN']);

    // Updating by npm name keeps what the install chose, environment included.
    for (const id of ['acme', 'acme-mcp']) {
      expect((await clat('plugin', 'uninstall', id)).code).toBe(0);
    }
    registry.publishDir(dir, { packageJson: { version: '1.4.0' } });
    const byName = await clat('plugin', 'update', 'npm:@acme/mcp');
    expect(byName.code, byName.stderr).toBe(0);
    expect(byName.stdout).toContain('Updated acme-broken 1.4.0');
    expect(await envNamesOf('acme-broken')).toEqual(['ACME_TOKEN']);
    // The bin chosen on the last update is kept too.
    const kept = await clat('call', 'mcp_acme_broken_echo', '{"text":"kept"}');
    expect(kept.stdout).toContain('alt: kept');
    expect((await clat('plugin', 'update', 'npm:@acme/mcp')).stdout).toBe(
      'acme-broken is already at 1.4.0, the newest version its range allows\n',
    );
    expect((await clat('plugin', 'uninstall', 'acme-broken')).code).toBe(0);
  }, 180_000);

  it('refuses an --env update that another update overtook while npm fetched, instead of undoing it', async () => {
    const dir = await legacyServerDir('race-mcp', [
      "import { BASIC_TOOLS, serveLegacy } from './lib.mjs';",
      "serveLegacy({ name: 'race', tools: BASIC_TOOLS });",
    ]);
    await publishServer(dir, '@acme/race');
    expect((await clat('plugin', 'install', 'npm:@acme/race', '--yes', '--id', 'race')).code).toBe(
      0,
    );
    registry.publishDir(dir, { packageJson: { version: '1.0.1' } });
    // Both updates read the installed environment, then wait on npm; the first lands first.
    registry.delayTarballs('@acme/race', 5_000);
    const fetched = registry.requests.length;
    const first = clat('plugin', 'update', 'race', '--env', 'FIRST=1');
    await expect
      .poll(
        () => registry.requests.slice(fetched).some((path) => path.endsWith('race-1.0.1.tgz')),
        {
          timeout: 30_000,
        },
      )
      .toBe(true);
    const second = await clat('plugin', 'update', 'race', '--env', 'SECOND=2');
    // Whichever lands first wins; the other is refused, and undoes nothing.
    const results = [
      { name: 'FIRST', args: ['--env', 'FIRST=1'], exit: await first },
      { name: 'SECOND', args: ['--env', 'SECOND=2'], exit: second },
    ];
    const refused = results.filter((result) => result.exit.code !== 0);
    expect(refused, results.map((result) => result.exit.stderr).join('\n')).toHaveLength(1);
    const [lost] = refused;
    const [won] = results.filter((result) => result.exit.code === 0);
    expect(lost?.exit.stderr).toContain(
      'clat: race was changed by another clat process while this update was prepared (it is now version 1.0.1); nothing was changed, run the command again to update from what is installed now [STORE_BUSY]\n',
    );
    expect(await envNamesOf('race')).toEqual([won?.name]);
    // The command again, as the message says: from what is installed now, both are kept.
    const again = await clat('plugin', 'update', 'race', ...(lost?.args ?? []));
    expect(again.code, again.stderr).toBe(0);
    expect(await envNamesOf('race')).toEqual(['FIRST', 'SECOND']);
  }, 300_000);

  it('passes the server its own arguments after --, keeps them on update, replaces and removes them', async () => {
    // A dependency-free server whose one tool answers with the arguments it was started with.
    const dir = await legacyServerDir('args-mcp', [
      "import { serveLegacy, text } from './lib.mjs';",
      'const readOnly = { readOnlyHint: true, openWorldHint: false };',
      'const handler = () => text(JSON.stringify(process.argv.slice(2)));',
      "serveLegacy({ name: 'args', tools: [{ name: 'argv', annotations: readOnly, handler }] });",
    ]);
    const publish = (version: string) =>
      registry.publishDir(dir, {
        packageJson: {
          name: '@acme/args-mcp',
          version,
          type: 'module',
          bin: { 'args-mcp': 'server.mjs' },
        },
      });
    await writeFile(join(dir, 'package.json'), '{"name":"@acme/args-mcp","version":"1.0.0"}');
    publish('1.0.0');
    const argv = async (): Promise<unknown> => {
      const called = await clat('call', 'mcp_args_mcp_argv', '--json');
      expect(called.code, called.stderr).toBe(0);
      return JSON.parse((JSON.parse(called.stdout) as { content: string }).content);
    };

    // The server's option typed without --: the error says where it goes, and that command works.
    const misplaced = await clat('plugin', 'install', 'npm:@acme/args-mcp', '--headless', '--yes');
    expect(misplaced.code).toBe(2);
    const suggested = 'clat plugin install npm:@acme/args-mcp --yes -- --headless';
    expect(misplaced.stderr).toBe(
      `clat: clat plugin: unknown option "--headless"; a server's own options go after --: ${suggested}; see "clat plugin --help" [CLI_USAGE]\n`,
    );
    const installed = await clat(...suggested.split(' ').slice(1));
    expect(installed.code, installed.stderr).toBe(0);
    expect(installed.stdout).toContain('Installed args-mcp 1.0.0');
    expect(await argv()).toEqual(['--headless']);

    // New arguments replace them: a relative path is made absolute (the server runs in its
    // package directory), ${CLAT_PLUGIN_DATA} is its data directory, and a key is noted.
    const key = 'sk-proj-ArgsValue0123456789';
    const replaced = await clat(
      'plugin',
      'update',
      'args-mcp',
      '--',
      '--root',
      './src',
      '--cache=../cache',
      '--db=${CLAT_PLUGIN_DATA}/db.sqlite',
      '--api-key',
      key,
    );
    expect(replaced.code, replaced.stderr).toBe(0);
    expect(replaced.stdout).toContain('Updated args-mcp 1.0.0');
    expect(replaced.stdout).toContain(
      `Relative paths were made absolute, since its server runs in its package directory: ./src → ${join(world.project, 'src')}, --cache=../cache → --cache=${join(world.work, 'cache')}\n`,
    );
    expect(replaced.stdout).toContain(
      "Note: a server argument looks like a key; other users of this machine can read server arguments (ps): if the server reads it from its environment, pass it with --env 'NAME=${NAME}' instead (read from the environment CLAT starts in)\n",
    );
    expect(replaced.stdout).not.toContain(key);
    const data = join(home, 'plugin-data', 'args-mcp');
    const expected = [
      '--root',
      join(world.project, 'src'),
      `--cache=${join(world.work, 'cache')}`,
      `--db=${data}/db.sqlite`,
      '--api-key',
      key,
    ];
    expect(await argv()).toEqual(expected);
    // The status and the list never show the key (the command line is redacted).
    const status = await clat('mcp', '--json');
    expect(status.code, status.stderr).toBe(0);
    expect(status.stdout).not.toContain(key);
    const list = await clat('plugin', 'list', '--json');
    const row = (JSON.parse(list.stdout) as { id: string; source: { args?: string[] } }[]).find(
      (entry) => entry.id === 'args-mcp',
    );
    expect(row?.source.args).toEqual([
      '--root',
      join(world.project, 'src'),
      `--cache=${join(world.work, 'cache')}`,
      '--db=${CLAT_PLUGIN_DATA}/db.sqlite',
      '--api-key',
      '[REDACTED]',
    ]);

    // A new version keeps them; a bare -- removes them.
    publish('1.1.0');
    const newer = await clat('plugin', 'update', 'args-mcp');
    expect(newer.code, newer.stderr).toBe(0);
    expect(newer.stdout).toContain('Updated args-mcp 1.1.0');
    expect(await argv()).toEqual(expected);
    const cleared = await clat('plugin', 'update', 'npm:@acme/args-mcp', '--');
    expect(cleared.code, cleared.stderr).toBe(0);
    expect(await argv()).toEqual([]);

    // Only npm sources take them, only install and update.
    const local = await clat('plugin', 'install', dir, '--yes', '--', '--headless');
    expect(local.code).toBe(2);
    expect(local.stderr).toContain(
      'arguments after -- only apply to npm: sources (a package sets its server\'s in "runtime.args" of its clat-plugin.json)',
    );
    const listed = await clat('plugin', 'list', '--', 'x');
    expect(listed.code).toBe(2);
    expect(listed.stderr).toContain(
      'arguments after -- only apply to install and update of npm: sources',
    );
    expect((await clat('plugin', 'uninstall', 'args-mcp')).code).toBe(0);
  }, 180_000);

  it("reads --env '${NAME}' from the environment clat starts in, so a key is stored nowhere", async () => {
    const dir = await legacyServerDir('keyed-mcp', [
      "import { serveLegacy, text } from './lib.mjs';",
      'const none = { type: "object", properties: {} };',
      "const handler = () => text('key=' + process.env.ACME_KEY + ' region=' + process.env.ACME_REGION);",
      'const annotations = { readOnlyHint: true, openWorldHint: false };',
      "serveLegacy({ name: 'keyed', tools: [{ name: 'whoami', inputSchema: none, annotations, handler }] });",
    ]);
    await publishServer(dir, '@acme/keyed-mcp');
    const withKey = (...args: string[]) =>
      execClat(args, {
        cwd: world.project,
        home,
        env: { ...world.env, ACME_KEY: 'alpha-from-env' },
      });

    // Installed where ACME_KEY is not set: said, by name, and the install goes through.
    const installed = await clat(
      'plugin',
      'install',
      'npm:@acme/keyed-mcp',
      '--yes',
      '--env',
      'ACME_KEY=${ACME_KEY}',
      '--env',
      'ACME_REGION=${ACME_REGION:-eu}',
    );
    expect(installed.code, installed.stderr).toBe(0);
    expect(installed.stdout).toContain(
      'Note: ACME_KEY is not set here; the server reads it from the environment CLAT starts in, and is not started while it is unset\n',
    );
    expect(installed.stdout).not.toContain('ACME_REGION is not set');

    // Without it, the server is not started and the reason names the variable and the fix.
    const status = JSON.parse((await clat('mcp', '--json')).stdout) as {
      servers: { name: string }[];
      configIssues: string[];
    };
    expect(status.configIssues).toContain(
      `${join(home, 'plugin-store', 'registry.json')}: keyed-mcp: its env ACME_KEY: the environment variable ACME_KEY is not set and has no default; set it where CLAT starts`,
    );
    expect(status.servers.map((server) => server.name)).not.toContain('keyed-mcp');

    // With it, each start reads it; the default fills the other.
    const called = await withKey('call', 'mcp_keyed_mcp_whoami', '{}');
    expect(called.code, called.stderr).toBe(0);
    expect(called.stdout).toContain('key=alpha-from-env region=eu');
    const other = await execClat(['call', 'mcp_keyed_mcp_whoami', '{}'], {
      cwd: world.project,
      home,
      env: { ...world.env, ACME_KEY: 'beta-from-env', ACME_REGION: 'us' },
    });
    expect(other.stdout).toContain('key=beta-from-env region=us');

    // The store holds the references only: registry.json, the generated manifest (the package's
    // own files hold no value either).
    const storeFiles = async (dir: string): Promise<string[]> => {
      const out: string[] = [];
      for (const entry of await readdir(dir, { withFileTypes: true, recursive: true })) {
        if (entry.isFile() && /\.json$/.test(entry.name)) {
          out.push(await readFile(join(entry.parentPath, entry.name), 'utf8'));
        }
      }
      return out;
    };
    const files = [
      await readFile(join(home, 'plugin-store', 'registry.json'), 'utf8'),
      ...(await storeFiles(join(home, 'plugin-store', 'artifacts', 'keyed-mcp'))),
    ];
    const manifest = files.find(
      (text) => text.includes('"@acme/keyed-mcp"') && text.includes('runtime'),
    );
    expect(manifest).toContain('"ACME_KEY": "${env.ACME_KEY}"');
    expect(manifest).toContain('"ACME_REGION": "${env.ACME_REGION:-eu}"');
    for (const text of files) {
      expect(text).not.toContain('alpha-from-env');
      expect(text).not.toContain('beta-from-env');
    }

    // A key typed as the value is kept in the store, as before, and the note says how not to.
    const typed = await withKey(
      'plugin',
      'update',
      'keyed-mcp',
      '--env',
      'ACME_KEY=sk-live-0123456789abcdefghij',
    );
    expect(typed.code, typed.stderr).toBe(0);
    expect(typed.stdout).toContain(
      "Note: the value of --env ACME_KEY looks like a key and is kept in the plugin store (owner-only files); to read it from the environment CLAT starts in instead, give --env 'ACME_KEY=${ACME_KEY}' (in single quotes, so the shell leaves it)\n",
    );
    expect(typed.stdout).not.toContain('sk-live-0123456789');
    const literal = await withKey('call', 'mcp_keyed_mcp_whoami', '{}');
    expect(literal.stdout).toContain('region=eu');
    expect(literal.stdout).not.toContain('alpha-from-env');

    // A key read in the server's arguments is put on its command line at each start: said, with
    // the --env that keeps it off; unset here, the install says the server waits for it too.
    const inArgs = await clat(
      'plugin',
      'update',
      'keyed-mcp',
      '--env',
      'ACME_KEY=${ACME_KEY}',
      '--',
      '--api-token=${ACME_ARG_TOKEN}',
    );
    expect(inArgs.code, inArgs.stderr).toBe(0);
    expect(inArgs.stdout).toContain(
      "Note: the server's arguments read ACME_ARG_TOKEN from the environment CLAT starts in, so each start puts its value on the server's command line, where other users of this machine can read it (ps); if the server reads it from its environment, pass it with --env 'ACME_ARG_TOKEN=${ACME_ARG_TOKEN}' instead\n",
    );
    expect(inArgs.stdout).toContain(
      'Note: ACME_KEY, ACME_ARG_TOKEN are not set here; the server reads them from the environment CLAT starts in, and is not started while one is unset\n',
    );
    expect(inArgs.stdout).not.toContain('looks like a key');
  }, 180_000);

  it('keeps the directories server-filesystem was given once its roots are off, as clat mcp says', async () => {
    registry.publishClosure(resolveInstalledPackage('@modelcontextprotocol/server-filesystem'));
    const data = join(world.project, 'data');
    await mkdir(data, { recursive: true });
    const installed = await clat(
      'plugin',
      'install',
      'npm:@modelcontextprotocol/server-filesystem',
      '--yes',
      '--',
      './data',
    );
    expect(installed.code, installed.stderr).toBe(0);
    const note = `Note: CLAT offers the server the project root as an MCP root; a server that narrows itself to its roots (server-filesystem does) then uses it instead of ${data}; clat plugin roots server-filesystem off keeps that directory\n`;
    expect(installed.stdout).toContain(note);
    const allowed = async (): Promise<string> => {
      const called = await clat('call', 'mcp_server_filesystem_list_allowed_directories', '{}');
      expect(called.code, called.stderr).toBe(0);
      return called.stdout;
    };
    // The server narrows itself to the roots CLAT offers: the project root, not ./data.
    expect(await allowed()).toContain(world.project);
    expect(await allowed()).not.toContain(data);
    const status = await clat('mcp');
    expect(status.stdout).toContain(
      'to keep the directories its arguments name instead, run "clat plugin roots server-filesystem off"',
    );
    // The command clat mcp names works: the server keeps ./data, across an update too.
    const off = await clat('plugin', 'roots', 'server-filesystem', 'off');
    expect(off.code, off.stderr).toBe(0);
    expect(off.stdout).toBe(
      "server-filesystem's server is no longer offered the project root as an MCP root; it keeps the directories its arguments name. Restart CLAT to apply.\n",
    );
    expect(await allowed()).toContain(data);
    expect((await clat('mcp')).stdout).toContain('roots: not offered');
    const updated = await clat('plugin', 'update', 'server-filesystem', '--env', 'FS_NOTE=kept');
    expect(updated.code, updated.stderr).toBe(0);
    expect(updated.stdout).not.toContain(note);
    expect(await allowed()).toContain(data);
    const list = JSON.parse((await clat('plugin', 'list', '--json')).stdout) as {
      id: string;
      roots?: boolean;
    }[];
    expect(list.find((row) => row.id === 'server-filesystem')?.roots).toBe(false);
    expect((await clat('plugin', 'roots', 'server-filesystem', 'on')).code).toBe(0);
    expect(await allowed()).not.toContain(data);
    const bad = await clat('plugin', 'roots', 'server-filesystem', 'maybe');
    expect(bad.stderr).toContain(
      'roots takes a plugin id and on or off: clat plugin roots <id> on|off',
    );
    const missing = await clat('plugin', 'roots', 'nope', 'off');
    expect(missing.stderr).toContain('nope is not installed');
    expect((await clat('plugin', 'uninstall', 'server-filesystem')).code).toBe(0);
  }, 300_000);

  it('answers an npm name typed without npm: with the line to run, which installs it', async () => {
    const dir = await legacyServerDir('plain-mcp', [
      "import { serveLegacy, text } from './lib.mjs';",
      'const none = { type: "object", properties: {} };',
      'const annotations = { readOnlyHint: true, openWorldHint: false };',
      "serveLegacy({ name: 'plain', tools: [{ name: 'ping', inputSchema: none, annotations, handler: () => text('pong') }] });",
    ]);
    await publishServer(dir, '@acme/plain-mcp');
    // As another client's README writes a package: no npm: in front.
    const typed = await clat('plugin', 'install', '@acme/plain-mcp', '--yes');
    expect(typed.code).toBe(2);
    const line = /an npm package is named with npm: in front: (clat plugin install .*); see/.exec(
      typed.stderr,
    )?.[1];
    expect(line).toBe('clat plugin install npm:@acme/plain-mcp --yes');
    // The line as given installs it.
    const installed = await clat(...(line as string).split(' ').slice(1));
    expect(installed.code, installed.stderr).toBe(0);
    expect(installed.stdout).toContain('Installed plain-mcp 1.0.0');
    expect((await clat('call', 'mcp_plain_mcp_ping', '{}')).stdout).toContain('pong');
    expect((await clat('plugin', 'uninstall', 'plain-mcp')).code).toBe(0);
  }, 120_000);

  it('refuses unknown packages and bad specs with npm’s reason', async () => {
    const missing = await clat('plugin', 'install', 'npm:@fixture/does-not-exist', '--yes');
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(
      /^Fetching @fixture\/does-not-exist@latest with npm \(its dependencies too\)…\nclat: npm pack @fixture\/does-not-exist@latest failed: .*404.* \[NPM_FAILED\]\n$/,
    );
    const bad = await clat('plugin', 'install', 'npm:Not A Name', '--yes');
    expect(bad.stderr).toBe(
      'clat: "npm:Not A Name" is not an npm package spec (npm:<name>[@<version|range|tag>]) [NPM_FAILED]\n',
    );
  }, 120_000);
});

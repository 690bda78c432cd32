/**
 * A damaged plugin store through the real `clat` binary: a removed registry.json, an unreadable
 * secrets file, a damaged package whose stored copy is gone too. Each must remove nothing the
 * person cannot get back, say what happened, and name a way forward that then works.
 */

import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { CLAT_BIN, type ClatExit, execClat } from '../support/clat-bin.js';

const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));

let work: string;
let home: string;
let counter = 0;

function clat(...args: string[]): Promise<ClatExit> {
  return execClat(args, { cwd: work, home });
}

/** A package `id` with a sensitive `token` setting. */
async function writePackage(id: string): Promise<string> {
  const dir = join(work, `src-${id}`);
  const entry = `#!/usr/bin/env node\nconsole.log('${id}');\n`;
  await mkdir(join(dir, 'bin'), { recursive: true });
  await writeFile(join(dir, 'bin', 'run.mjs'), entry);
  await chmod(join(dir, 'bin', 'run.mjs'), 0o755);
  const manifest = {
    manifestVersion: 1,
    id,
    name: id,
    version: '1.0.0',
    runtime: {
      kind: 'mcp-stdio',
      entry: 'bin/run.mjs',
      sha256: createHash('sha256').update(entry).digest('hex'),
    },
    capabilities: { tools: true },
    userConfig: { token: { type: 'string', title: 'Token', sensitive: true, required: true } },
  };
  await writeFile(join(dir, 'clat-plugin.json'), JSON.stringify(manifest));
  return dir;
}

async function install(id: string, token: string): Promise<string> {
  const dir = await writePackage(id);
  const result = await clat('plugin', 'install', dir, '--yes', '--config', `token=${token}`);
  expect(result.code, result.stderr).toBe(0);
  return dir;
}

/** Every file under `dir`, relative, sorted. */
async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true }).catch(() => []);
  return entries.map(String).sort();
}

beforeAll(async () => {
  if (!existsSync(join(REPO_ROOT, 'apps/clat/dist/main.js'))) {
    throw new Error('apps/clat/dist is missing; run "pnpm build" before the e2e tests');
  }
  work = await mkdtemp(join(tmpdir(), 'clat-store-damage-'));
});
beforeEach(() => {
  home = join(work, `home-${counter++}`);
});
afterAll(async () => {
  await rm(work, { recursive: true, force: true });
});

describe('a damaged plugin store', () => {
  it('without its registry removes nothing, says what it holds, and the advised start-over works', async () => {
    await install('alpha', 'alpha-token');
    await install('beta', 'beta-token');
    const store = join(home, 'plugin-store');
    const secrets = join(home, 'plugin-secrets');
    const registry = join(store, 'registry.json');
    await rm(registry);
    const held = {
      store: (await filesUnder(store)).filter((path) => !path.startsWith('staging')),
      secrets: await filesUnder(secrets),
    };
    expect(held.secrets).toHaveLength(2);

    const listed = await clat('plugin', 'list');
    expect(listed.code).toBe(1);
    const move = `mv ${store} ${store}.lost && mv ${secrets} ${secrets}.lost`;
    expect(listed.stderr).toBe(
      `clat: ${registry} is missing, but the plugin store holds 2 package(s) it does not list (alpha, beta); plugins are disabled and none of their files is removed: restore ${registry} from a backup, or start over with "${move}" and install them again (each has a copy in ${store}.lost/containers/<id>) [REGISTRY_MISSING]\n`,
    );
    // Every store command refuses the same way, repair and uninstall included, and removes nothing.
    for (const args of [
      ['plugin', 'repair', 'alpha'],
      ['plugin', 'uninstall', 'alpha'],
      ['plugin', 'install', await writePackage('gamma'), '--yes', '--config', 'token=g'],
    ]) {
      const refused = await clat(...args);
      expect(refused.code, args.join(' ')).toBe(1);
      expect(refused.stderr).toContain('[REGISTRY_MISSING]');
    }
    // The host commands say it too, instead of starting without the plugins as if none were
    // installed.
    const status = await clat('mcp', '--trust');
    expect(status.code).toBe(1);
    expect(status.stderr).toContain(
      `${registry} is missing, but the plugin store holds 2 package(s)`,
    );
    const tools = await clat('tools', '--trust');
    expect(tools.stderr).toContain(
      `${registry} is missing, but the plugin store holds 2 package(s)`,
    );
    expect((await filesUnder(store)).filter((path) => !path.startsWith('staging'))).toEqual(
      held.store,
    );
    expect(await filesUnder(secrets)).toEqual(held.secrets);

    // The way forward the message names: move both aside, install again from the stored copies.
    const { execFileSync } = await import('node:child_process');
    execFileSync('sh', ['-c', move]);
    for (const id of ['alpha', 'beta']) {
      const [copy] = await readdir(join(`${store}.lost`, 'containers', id));
      const again = await clat(
        'plugin',
        'install',
        join(`${store}.lost`, 'containers', id, copy as string),
        '--yes',
        '--config',
        `token=${id}-token`,
      );
      expect(again.code, again.stderr).toBe(0);
    }
    const after = await clat('plugin', 'list', '--json');
    expect(after.code, after.stderr).toBe(0);
    expect(JSON.parse(after.stdout)).toMatchObject([
      { id: 'alpha', health: 'ok' },
      { id: 'beta', health: 'ok' },
    ]);
  }, 120_000);

  it('with an unreadable secrets file says so in the listing, and the advised configure works', async () => {
    await install('alpha', 'alpha-token');
    const secrets = join(home, 'plugin-secrets');
    const [name] = await readdir(secrets);
    const file = join(secrets, name as string);
    await writeFile(file, '{"token":"al');
    const advice = `${file} is not a JSON object (it was cut short or changed); set alpha's sensitive settings (token) again with "clat plugin configure alpha --config token=<value>"`;
    const listed = await clat('plugin', 'list', '--json');
    expect(listed.code, listed.stderr).toBe(0);
    expect(JSON.parse(listed.stdout)[0].health).toBe(advice);
    // A change that would keep the value it cannot read is refused, naming the key.
    const update = await clat('plugin', 'update', await writePackage('alpha'), '--yes');
    expect(update.stderr).toContain(
      "so alpha's sensitive settings token cannot be kept: add --config token=<value> to the command [SECRETS_UNREADABLE]",
    );

    const configured = await clat('plugin', 'configure', 'alpha', '--config', 'token=new-token');
    expect(configured.code, configured.stderr).toBe(0);
    const after = await clat('plugin', 'list', '--json');
    expect(JSON.parse(after.stdout)[0].health).toBe('ok');
    expect(await readdir(secrets)).not.toContain(name);
  }, 120_000);

  it('with a damaged package and no stored copy sends the person to a reinstall, which works', async () => {
    const dir = await install('alpha', 'alpha-token');
    const store = join(home, 'plugin-store');
    const [artifact] = await readdir(join(store, 'artifacts', 'alpha'));
    const container = join(store, 'containers', 'alpha', `${artifact}.clatpkg`);
    await rm(container);
    const entry = join(store, 'artifacts', 'alpha', artifact as string, 'bin', 'run.mjs');
    await chmod(entry, 0o700);
    await writeFile(entry, 'tampered');

    const listed = await clat('plugin', 'list', '--json');
    const health = JSON.parse(listed.stdout)[0].health as string;
    expect(health).not.toContain('clat plugin repair');
    expect(health).toMatch(
      new RegExp(
        `; its stored copy ${container} is missing too, so reinstall the same version \\(alpha 1\\.0\\.0\\) with "clat plugin install <its package>"$`,
      ),
    );
    const again = await clat('plugin', 'install', dir);
    expect(again.code, again.stderr).toBe(0);
    const after = await clat('plugin', 'list', '--json');
    expect(JSON.parse(after.stdout)[0].health).toBe('ok');
  }, 120_000);
  // After a `sudo clat plugin install`, the store is root's: the person's own clat is refused.
  it.runIf(process.getuid?.() === 0 && spawnSync('setpriv', ['--help']).status === 0)(
    "owned by another user names the registry's owner and mode, and the advised chown works",
    async () => {
      await install('alpha', 'alpha-token');
      const store = join(home, 'plugin-store');
      for (const dir of [work, home, store]) await chmod(dir, 0o755);
      const asNobody = () =>
        spawnSync(
          'setpriv',
          [
            '--reuid=65534',
            '--regid=65534',
            '--clear-groups',
            process.execPath,
            CLAT_BIN,
            'plugin',
            'list',
          ],
          { env: { PATH: process.env.PATH ?? '', CLAT_HOME: home }, cwd: '/', encoding: 'utf8' },
        );
      const refused = asNobody();
      expect(refused.status).toBe(1);
      expect(refused.stderr).toContain(
        `clat: cannot read ${join(store, 'registry.json')}: permission denied (EACCES); it belongs to uid 0 with mode 0600 and clat runs as uid 65534: give it back to the user who runs clat (chown) with mode 0600, or run clat as its owner`,
      );
      const owned = spawnSync('chown', ['-R', '65534:65534', home]);
      expect(owned.status).toBe(0);
      const listed = asNobody();
      expect(listed.stderr).toBe('');
      expect(listed.stdout).toContain('alpha');
    },
    120_000,
  );
});

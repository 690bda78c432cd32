/**
 * `clat mcp add … -- npx -y <package>` on a terminal (tmux), through the binary and the real
 * npm, network-free: the add installs the package into npx's cache, so the server's first start
 * connects although its tarball takes longer than the handshake; Ctrl-C skips the install (the
 * entry stays, no npm is left running); a misspelt package says npm's 404 and how to retry.
 * Without a terminal the add fetches nothing and names the command (`npx-first-start.test.ts`).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveInstalledPackage } from '../support/npm-registry.js';
import { type NpmWorld, openNpmWorld } from '../support/npm-world.js';
import { CLAT_BIN } from './support.js';
import { hasTmux, TmuxSession } from './tmux.js';

const PACKAGE = '@modelcontextprotocol/server-memory';
const SLOW = 'clat-e2e-slow-server';

let world: NpmWorld;
let tmux: TmuxSession;

beforeAll(async () => {
  world = await openNpmWorld('clat-npx-add-', 120_000);
  world.registry.publishClosure(resolveInstalledPackage(PACKAGE));
  // A package whose download never ends in time: the one Ctrl-C skips.
  const slow = join(world.work, 'slow-package');
  await mkdir(slow);
  await writeFile(
    join(slow, 'package.json'),
    JSON.stringify({ name: SLOW, version: '1.0.0', bin: { [SLOW]: 'server.js' } }),
  );
  await writeFile(join(slow, 'server.js'), '#!/usr/bin/env node\n', { mode: 0o755 });
  world.registry.publishDir(slow);
  world.registry.delayTarballs(SLOW, 120_000);
  tmux = new TmuxSession(`clat-npx-add-${process.pid}-${Date.now()}`);
});

afterAll(async () => {
  tmux?.kill();
  await world?.close();
});

/** Runs `clat mcp add <args>` in tmux with the world's npm settings; resolves to the pane. */
async function addOnTerminal(args: string[], until: RegExp): Promise<string> {
  tmux.kill();
  tmux.start([process.execPath, CLAT_BIN, 'mcp', 'add', ...args], world.project, {
    ...world.env,
    CLAT_HOME: world.home,
    PATH: process.env.PATH ?? '',
  });
  return tmux.waitFor(until, 0, 90_000);
}

/**
 * The npm processes of this world (its HOME) still installing (none may outlive the add). Found
 * by environment, not command line: npm sets its process title to `npm exec node -e 0`, which no
 * longer names the package.
 */
function npmInstalling(): number[] {
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const command = readFileSync(`/proc/${entry}/cmdline`, 'utf8').replaceAll('\0', ' ');
      if (!command.includes('npm exec')) continue;
      const env = readFileSync(`/proc/${entry}/environ`, 'utf8');
      if (env.includes(`HOME=${world.work}\0`)) found.push(Number(entry));
    } catch {
      // Gone meanwhile.
    }
  }
  return found;
}

describe.skipIf(!hasTmux())('clat mcp add of an npx server, on a terminal', () => {
  it('Ctrl-C skips the install: the entry stays, npm is stopped, the command is named', async () => {
    await addOnTerminal(['slow', '--', 'npx', '-y', SLOW], /Installing .*Ctrl-C skips it/);
    // "Installing" is said just before npm starts; Ctrl-C once it runs.
    for (let i = 0; i < 600 && npmInstalling().length === 0; i++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(npmInstalling(), tmux.capture()).not.toEqual([]);
    tmux.key('C-c');
    const pane = await tmux.waitFor('EXITED:', 0, 30_000);
    expect(pane).toContain(
      `Skipped the install; before the server's first start, install it with "npm exec --yes --package=${SLOW} -- node -e 0"`,
    );
    expect(pane).toContain('EXITED:0');
    expect(npmInstalling()).toEqual([]);
    const file = JSON.parse(await readFile(join(world.home, 'mcp.json'), 'utf8'));
    expect(file.mcpServers.slow).toEqual({ command: 'npx', args: ['-y', SLOW] });
    expect((await world.clat('mcp', 'remove', 'slow')).code).toBe(0);
  }, 120_000);

  it("a misspelt package: npm's 404 is said, the entry is saved", async () => {
    const typo = '@modelcontextprotocol/server-memroy';
    const pane = await addOnTerminal(['typo', '--', 'npx', '-y', typo], /EXITED:\d+/);
    expect(pane).toContain(
      `Could not install ${typo}: npm exited with code 1 (npm error code E404`,
    );
    expect(pane).toContain(
      `the entry is saved: check the package name, then install it with "npm exec --yes --package=${typo} -- node -e 0" before the server's first start`,
    );
    expect(pane).toContain('EXITED:0');
    expect((await world.clat('mcp', 'remove', 'typo')).code).toBe(0);
  }, 120_000);

  it('installs the package, so the first start connects although its download is slow', async () => {
    // Longer than the 3 s probe and the 10 s initialize together: without the install at the
    // add, this first start fails (npx-first-start.test.ts).
    world.registry.delayTarballs(PACKAGE, 12_000);
    const pane = await addOnTerminal(['memory', '--', 'npx', '-y', PACKAGE], /EXITED:\d+/);
    expect(pane).toMatch(
      new RegExp(
        `Installed ${PACKAGE} in (1[2-9]|[2-9]\\d)\\.\\d s; the server starts from npx's cache`,
      ),
    );
    expect(pane).toContain('EXITED:0');

    const first = await world.clat('tools', '--server', 'memory');
    expect(first.code, first.stdout + first.stderr).toBe(0);
    expect(first.stdout).toContain('read_graph');
  }, 180_000);
});

/**
 * The first start of an `npx -y <package>` server on a cold npm cache, through the `clat` binary
 * and the real npx, network-free: the local registry serves server-memory's closure with its
 * tarball slow, so npx is still installing when the handshake times out, and every attempt is
 * cut short before npm finishes. `clat mcp` says so and names the command that installs the
 * package once; that command, run as shown, makes the next start connect with the tarball still
 * slow (npx then runs from its cache). Without a terminal, `clat mcp add` installs nothing and
 * names that command too (on a terminal it installs: `npx-add-install.test.ts`).
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveInstalledPackage } from '../support/npm-registry.js';
import { type NpmWorld, openNpmWorld } from '../support/npm-world.js';

const PACKAGE = '@modelcontextprotocol/server-memory';

let world: NpmWorld;

beforeAll(async () => {
  world = await openNpmWorld('clat-npx-first-', 120_000);
  world.registry.publishClosure(resolveInstalledPackage(PACKAGE));
});

afterAll(async () => {
  await world?.close();
});

describe('an npx server on a cold cache', () => {
  it('says npx was still installing and names the command that fixes it, which does', async () => {
    const { clat, registry, env, home } = world;
    // Without a terminal the add fetches nothing (the registry is asked for nothing) and names
    // the command that installs the package, the same one the failed start names below.
    const asked = registry.requests.length;
    const added = await clat('mcp', 'add', 'memory', '--', 'npx', '-y', PACKAGE);
    expect(added.code, added.stderr).toBe(0);
    const install = `npm exec --yes --package=${PACKAGE} -- node -e 0`;
    expect(added.stdout).toContain(
      `Note: npx downloads ${PACKAGE} at the server's first start, which often takes longer than the handshake allows (10 s); install it once now with "${install}", so that start runs from npx's cache\n`,
    );
    expect(registry.requests.length).toBe(asked);
    // Longer than the 3 s probe and the 10 s initialize together.
    registry.delayTarballs(PACKAGE, 15_000);

    const cold = await clat('mcp');
    expect(cold.code).toBe(1);
    expect(cold.stdout).toContain('memory  stdio  failed');
    expect(cold.stdout).toContain('legacy initialize: did not answer initialize within 10000 ms');
    expect(cold.stdout).toContain(
      `npx may still have been installing ${PACKAGE} (a first start downloads it, and each attempt is stopped at the handshake timeout before npm finishes); install it once with "${install}" (it may first wait up to a minute for the lock a stopped attempt left), then start CLAT again`,
    );

    // The command as the message gives it, in a shell with the same npm settings. With npm 11 it
    // first waits out the lock the stopped npx left mid-install, then installs.
    const shown = /install it once with "([^"]+)"/.exec(cold.stdout)?.[1] as string;
    // Not execFileSync: the registry answers from this process.
    await promisify(execFile)('sh', ['-c', shown], {
      cwd: home,
      env: { PATH: process.env.PATH ?? '', ...env },
      timeout: 120_000,
    });

    // Its tarball is still slow: the server connects because npx now runs from its cache.
    const warm = await clat('mcp');
    expect(warm.code, warm.stdout + warm.stderr).toBe(0);
    expect(warm.stdout).toMatch(/memory +stdio +connected/);
    const tools = await clat('tools', '--server', 'memory');
    expect(tools.code, tools.stderr).toBe(0);
    expect(tools.stdout).toContain('read_graph');
  }, 300_000);
});

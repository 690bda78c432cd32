/**
 * `clat mcp login|logout` for an HTTP server in a trusted project's own `.clat/mcp.json`: `clat
 * mcp` offers the login, so the login must find the entry (before the fix it read only
 * `~/.clat/mcp.json` and refused with CLI_SERVER_NOT_FOUND). The login command a run shows
 * carries that run's `-C <dir>` and `--trust`, and a name a shell would split or expand quoted: it
 * is pasted as shown, from elsewhere, and works. Real OpenID provider and protected MCP server on
 * 127.0.0.1, $BROWSER consenting.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BROWSER, type OAuthWorld, startOAuthWorld } from '../oauth/oauth-world.js';
import { parseJsonOutput, shownCommandArgs, useCliSandbox } from './support.js';

interface StatusJson {
  servers: { name: string; state: string; tools: number; login?: string }[];
}

let world: OAuthWorld | undefined;

/** Only the project names the server: the user's mcp.json is empty. */
async function projectServer(name: string): Promise<void> {
  if (world === undefined) throw new Error('no OAuth world');
  await sandbox.writeMcp({ mcpServers: {} });
  await mkdir(join(sandbox.project, '.clat'), { recursive: true });
  await writeFile(
    join(sandbox.project, '.clat', 'mcp.json'),
    JSON.stringify({ mcpServers: { [name]: { url: world.mcp.url } } }),
  );
}

const sandbox = useCliSandbox(
  async () => {
    world = await startOAuthWorld(sandbox);
    await projectServer('projdocs');
  },
  { teardown: () => world?.close() },
);

const run = (args: string[], cwd?: string) =>
  sandbox.run(args, { env: { BROWSER }, ...(cwd === undefined ? {} : { cwd }) });

describe('login to a server of the project mcp.json', () => {
  it('logs in and out of the server `clat mcp` says needs login', async () => {
    await run(['trust']);
    const before = parseJsonOutput<StatusJson>(await run(['mcp', '--json']));
    expect(before.servers).toMatchObject([
      { name: 'projdocs', state: 'needs-login', login: 'clat mcp login projdocs' },
    ]);

    const login = await run(['mcp', 'login', 'projdocs']);
    expect(login.stderr).toBe('');
    expect(login.code).toBe(0);
    expect(login.stdout).toMatch(/Logged in to projdocs at http:\/\/127\.0\.0\.1:\d+/);

    const after = parseJsonOutput<StatusJson>(await run(['mcp', '--json']));
    expect(after.servers).toMatchObject([{ name: 'projdocs', state: 'connected', tools: 2 }]);

    const logout = await run(['mcp', 'logout', 'projdocs']);
    expect(logout.code).toBe(0);
    expect(logout.stdout).toBe(
      `Logged out of projdocs; the authorization server ${world?.as.issuer} revoked its tokens, and its stored tokens and registered client were deleted\n`,
    );
  });

  it('says the project file is not read while the project is untrusted', async () => {
    const login = await run(['mcp', 'login', 'projdocs']);
    expect(login.code).not.toBe(0);
    expect(login.stderr).toContain(
      `${join(sandbox.home, 'mcp.json')}: no server named "projdocs"; ${join(sandbox.project, '.clat', 'mcp.json')} is not read because the project is not trusted (run "clat trust ${sandbox.project}", or pass --trust)`,
    );
  });

  it('shows, from another directory and trusted for the run only, a login that works pasted as shown', async () => {
    // A name a shell would split and expand: double quotes (the old form) let `$HOME` through.
    const name = 'team docs $HOME';
    await projectServer(name);
    const elsewhere = sandbox.root;
    const flags = ['-C', sandbox.project, '--trust'];
    const shown = `clat mcp login 'team docs $HOME' -C ${sandbox.project} --trust`;

    const status = parseJsonOutput<StatusJson>(await run(['mcp', '--json', ...flags], elsewhere));
    expect(status.servers).toMatchObject([{ name, state: 'needs-login', login: shown }]);
    const tools = await run(['tools', ...flags], elsewhere);
    expect(tools.stderr).toBe(
      `clat: server ${JSON.stringify(name)} needs login; run \`${shown}\`\n`,
    );
    // Without the flags the same words refuse: the project is neither here nor trusted.
    const bare = await run(['mcp', 'login', name], elsewhere);
    expect(bare.code).not.toBe(0);
    expect(bare.stderr).toContain(`no server named ${JSON.stringify(name)}`);

    const login = await run(shownCommandArgs(shown), elsewhere);
    expect(login.stderr).toBe('');
    expect(login.code).toBe(0);
    expect(login.stdout).toContain(`Logged in to ${name} at http://127.0.0.1:`);
    const after = parseJsonOutput<StatusJson>(await run(['mcp', '--json', ...flags], elsewhere));
    expect(after.servers).toMatchObject([{ name, state: 'connected', tools: 2 }]);

    const logout = await run(['mcp', 'logout', name, ...flags], elsewhere);
    expect(logout.code).toBe(0);
    expect(logout.stdout).toBe(
      `Logged out of ${name}; the authorization server ${world?.as.issuer} revoked its tokens, and its stored tokens and registered client were deleted\n`,
    );
    // Nothing was stored as trusted along the way.
    expect((await run(['trust', '--list'])).stdout).not.toContain(sandbox.project);
  });
});

/**
 * `clat mcp login|logout` for an HTTP server in a trusted project's own `.clat/mcp.json`: `clat
 * mcp` offers the login, so the login must find the entry (before the fix it read only
 * `~/.clat/mcp.json` and refused with CLI_SERVER_NOT_FOUND). Real OpenID provider and protected
 * MCP server on 127.0.0.1, $BROWSER consenting.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BROWSER, type OAuthWorld, startOAuthWorld } from '../oauth/oauth-world.js';
import { parseJsonOutput, useCliSandbox } from './support.js';

interface StatusJson {
  servers: { name: string; state: string; tools: number; login?: string }[];
}

let world: OAuthWorld | undefined;

const sandbox = useCliSandbox(
  async () => {
    world = await startOAuthWorld(sandbox);
    // Only the project names the server: the user's mcp.json is empty.
    await sandbox.writeMcp({ mcpServers: {} });
    await mkdir(join(sandbox.project, '.clat'), { recursive: true });
    await writeFile(
      join(sandbox.project, '.clat', 'mcp.json'),
      JSON.stringify({ mcpServers: { projdocs: { url: world.mcp.url } } }),
    );
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
      'Logged out of projdocs; its stored tokens and registered client were deleted\n',
    );
  });

  it('says the project file is not read while the project is untrusted', async () => {
    const login = await run(['mcp', 'login', 'projdocs']);
    expect(login.code).not.toBe(0);
    expect(login.stderr).toContain(
      `${join(sandbox.home, 'mcp.json')}: no server named "projdocs"; ${join(sandbox.project, '.clat', 'mcp.json')} is not read because the project is not trusted (run "clat trust" in it)`,
    );
  });
});

/**
 * An authorization server without dynamic client registration, whose client was registered by
 * hand with a fixed redirect URI (`http://localhost:<port>/callback`, matched exactly, port
 * included, as a provider's console registers it): `clat mcp login` names the `clat mcp add`
 * that configures such a client, which takes Claude Code's `--client-id`, `--client-secret` (from
 * `MCP_CLIENT_SECRET`, never on the command line) and `--callback-port`; the login then listens
 * on that port and connects. The binary before this change said only to edit mcp.json, had no
 * such flags, and redirected to a random port the provider refused.
 * @module
 */
import { readFile, stat } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  assertBuilt,
  CLAT_BIN,
  type ClatResult,
  CliSandbox,
  parseJsonOutput,
  shownCommandArgs,
} from '../cli/support.js';
import { hasTmux, TmuxSession } from '../cli/tmux.js';
import { BROWSER, type OAuthWorld, readTokenFile, startOAuthWorld } from './oauth-world.js';

const CLIENT_ID = 'clat-by-hand';
const SECRET = 'hand-registered-secret-0123456789';

let sandbox: CliSandbox;
let world: OAuthWorld;
let port = 0;
const outputs: string[] = [];
let holder: Server | undefined;
let tmux: TmuxSession | undefined;

async function clat(args: string[], env: Record<string, string> = {}): Promise<ClatResult> {
  const result = await sandbox.run(args, { env: { BROWSER, ...env } });
  outputs.push(result.stdout, result.stderr);
  return result;
}

/** `clat mcp add` of the hand-registered client, its secret from wherever the caller gives it. */
function addClient(): string[] {
  const client = ['--client-id', CLIENT_ID, '--client-secret', '--callback-port', String(port)];
  return ['mcp', 'add', 'remote', world.mcp.url, ...client, '--force'];
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port: free } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return free;
}

beforeAll(assertBuilt);
beforeEach(async () => {
  outputs.length = 0;
  sandbox = new CliSandbox();
  await sandbox.setup();
  port = await freePort();
  world = await startOAuthWorld(sandbox, {
    as: {
      registration: false,
      clients: [
        {
          client_id: CLIENT_ID,
          client_secret: SECRET,
          redirect_uris: [`http://localhost:${port}/callback`],
        },
      ],
    },
  });
  await clat(['trust']);
});
afterEach(async () => {
  tmux?.kill();
  tmux = undefined;
  await new Promise<void>((resolve) =>
    holder === undefined ? resolve() : holder.close(() => resolve()),
  );
  holder = undefined;
  await world?.close();
  await sandbox.cleanup();
});

describe('an OAuth client registered by hand', () => {
  it('is named by the failed login, added with --client-id/--client-secret/--callback-port, and logs in', async () => {
    // The entry has a header of its own: the command named keeps it (--force replaces the entry).
    await sandbox.writeMcp({
      mcpServers: { remote: { url: world.mcp.url, headers: { 'X-Team': 'blue' } } },
    });
    const failed = await clat(['mcp', 'login', 'remote']);
    expect(failed.code).not.toBe(0);
    const hint = `authorization server ${world.as.issuer} offers no client registration: register CLAT there as an OAuth client with the redirect URI http://localhost:<port>/callback (a free port of your choosing), then run: clat mcp add 'remote' --url '${world.mcp.url}' --client-id <id> --callback-port <port> --header 'X-Team: <value>' --force (when the client has a secret, add --client-secret), and log in again`;
    expect(failed.stderr).toContain(hint);
    expect(failed.stderr).not.toContain('blue');

    // The command as named, with the client's id, port and header, and its secret from the environment.
    const named = /then run: (clat mcp add .*? --force)/.exec(failed.stderr)?.[1] ?? '';
    const args = shownCommandArgs(
      named.replace('<id>', CLIENT_ID).replace('<port>', String(port)).replace('<value>', 'blue'),
    );
    const refused = await clat([...args, '--client-secret']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(
      '--client-secret: the secret comes from MCP_CLIENT_SECRET, or is asked for on a terminal, and there is none here; set MCP_CLIENT_SECRET for this command',
    );
    const added = await clat([...args, '--client-secret'], { MCP_CLIENT_SECRET: SECRET });
    expect(added.code, added.stderr).toBe(0);
    expect(added.stdout).toBe(
      [
        `Added http server "remote" to ${join(sandbox.home, 'mcp.json')}; restart CLAT to mount it`,
        'Log in with: clat mcp login remote',
        '',
      ].join('\n'),
    );
    expect(await sandbox.readMcp()).toEqual({
      mcpServers: {
        remote: {
          url: world.mcp.url,
          headers: { 'X-Team': 'blue' },
          oauth: { clientId: CLIENT_ID, clientSecret: SECRET, callbackPort: port },
        },
      },
    });
    expect((await stat(join(sandbox.home, 'mcp.json'))).mode & 0o777).toBe(0o600);
    const shown = parseJsonOutput<{ servers: { oauth?: Record<string, unknown> }[] }>(
      await clat(['mcp', 'get', 'remote', '--json']),
    );
    expect(JSON.stringify(shown)).toContain('"clientSecret":"(set)"');
    expect((await clat(['mcp', 'get', 'remote'])).stdout).toBe(
      `  remote  http  ${world.mcp.url} headers: X-Team  (OAuth client "${CLIENT_ID}", secret set, callback port ${port})\n`,
    );

    // The port of the registered redirect URI is busy: said, nothing sent elsewhere.
    holder = createServer();
    await new Promise<void>((resolve) => holder?.listen(port, '127.0.0.1', resolve));
    const busy = await clat(['mcp', 'login', 'remote']);
    expect(busy.code).not.toBe(0);
    expect(busy.stderr).toContain(
      `cannot listen on localhost port ${port} ("oauth.callbackPort"; EADDRINUSE): the client's registered redirect URI http://localhost:${port}/callback needs it; stop what listens there and log in again`,
    );
    await new Promise<void>((resolve) => holder?.close(() => resolve()));
    holder = undefined;

    const login = await clat(['mcp', 'login', 'remote']);
    expect(login.stderr).toBe('');
    expect(login.code).toBe(0);
    expect(login.stdout).toContain(
      `redirect_uri=${encodeURIComponent(`http://localhost:${port}/callback`)}`,
    );
    expect(login.stdout).toContain(`client_id=${CLIENT_ID}`);
    const { record } = await readTokenFile(sandbox.home);
    expect(record.client).toMatchObject({ clientId: CLIENT_ID, source: 'config' });
    expect(
      await readFile(
        join(
          sandbox.home,
          'oauth',
          (await readTokenFile(sandbox.home)).path.split('/').pop() ?? '',
        ),
        'utf8',
      ),
    ).not.toContain(SECRET);

    const status = parseJsonOutput<{ servers: { state: string; tools: number }[] }>(
      await clat(['mcp', '--json']),
    );
    expect(status.servers[0]).toMatchObject({ state: 'connected', tools: 2 });

    // Logout revokes as the confidential client (its secret from mcp.json authenticates it).
    const logout = await clat(['mcp', 'logout', 'remote']);
    expect(logout.stderr).toBe('');
    expect(logout.stdout).toBe(
      `Logged out of remote; the authorization server ${world.as.issuer} revoked its tokens, and its stored tokens were deleted\n`,
    );
    expect(await world.as.provider.AccessToken.find(record.tokens.accessToken)).toBeUndefined();
    for (const output of outputs) expect(output).not.toContain(SECRET);
  });

  it('refuses the client flags where they cannot apply, before asking for anything', async () => {
    const cases: [string[], string][] = [
      [
        ['x', '--client-secret', '--url', 'https://x.example/mcp'],
        '--client-secret is the secret of the client --client-id names; give --client-id too',
      ],
      [['x', '--client-id', 'c', '--', 'x-cmd'], 'only servers with a URL take --client-id'],
      [
        ['x', 'https://x.example/mcp', '--callback-port', 'eighty'],
        '--callback-port must be a port number, 1 to 65535, not "eighty"',
      ],
      [
        ['x', 'https://x.example/mcp', '--callback-port', '70000'],
        '--callback-port: must be a port, 1 to 65535',
      ],
    ];
    for (const [args, message] of cases) {
      const refused = await clat(['mcp', 'add', ...args], { MCP_CLIENT_SECRET: SECRET });
      expect(refused.code, args.join(' ')).toBe(2);
      expect(refused.stderr).toContain(message);
    }
    expect(JSON.stringify(await sandbox.readMcp())).not.toContain('"x"');
    // The project's file is often committed: a literal secret is noted with the way to avoid it.
    const shared = await clat(
      [
        'mcp',
        'add',
        '-s',
        'project',
        'docs',
        'https://x.example/mcp',
        '--client-id',
        'c',
        '--client-secret',
      ],
      { MCP_CLIENT_SECRET: SECRET },
    );
    expect(shared.code, shared.stderr).toBe(0);
    expect(shared.stdout).toContain(
      "the value of --client-secret is written as typed; write '${NAME}' (in single quotes, so the shell leaves it) to take a value from the environment CLAT runs in (for --client-secret: MCP_CLIENT_SECRET='${NAME}')",
    );
  });

  it('takes the secret as a ${VAR} reference, expanded at login and mount', async () => {
    const added = await clat(addClient(), { MCP_CLIENT_SECRET: '${HAND_SECRET}' });
    expect(added.code, added.stderr).toBe(0);
    expect(JSON.stringify(await sandbox.readMcp())).toContain('"clientSecret":"${HAND_SECRET}"');
    // Unset, the login names the field; set, the token exchange authenticates with its value.
    const unset = await clat(['mcp', 'login', 'remote']);
    expect(unset.code).not.toBe(0);
    expect(unset.stderr).toContain(
      'remote.oauth.clientSecret: the environment variable HAND_SECRET is not set and has no default (write ${HAND_SECRET:-value} for one)',
    );
    const login = await clat(['mcp', 'login', 'remote'], { HAND_SECRET: SECRET });
    expect(login.code, login.stderr).toBe(0);
    const status = parseJsonOutput<{ servers: { state: string }[] }>(
      await clat(['mcp', '--json'], { HAND_SECRET: SECRET }),
    );
    expect(status.servers[0]?.state).toBe('connected');
    for (const output of outputs) expect(output).not.toContain(SECRET);
  });

  it.skipIf(!hasTmux())('asks for the secret on a terminal without showing it', async () => {
    tmux = new TmuxSession(`clat-client-secret-${process.pid}-${Date.now()}`);
    tmux.start([process.execPath, CLAT_BIN, ...addClient()], sandbox.project, {
      CLAT_HOME: sandbox.home,
      NO_COLOR: '1',
    });
    await tmux.waitFor(`Client secret of "${CLIENT_ID}" for remote (not shown):`);
    tmux.line(SECRET);
    const pane = await tmux.waitFor('EXITED:0');
    expect(pane).toContain('Added http server "remote"');
    expect(pane).not.toContain(SECRET);
    expect(await sandbox.readMcp()).toEqual({
      mcpServers: {
        remote: {
          url: world.mcp.url,
          oauth: { clientId: CLIENT_ID, clientSecret: SECRET, callbackPort: port },
        },
      },
    });
    expect((await clat(['mcp', 'login', 'remote'])).code).toBe(0);
  });
});

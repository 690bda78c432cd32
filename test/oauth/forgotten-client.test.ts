/**
 * Two ways a login went wrong outside CLAT, through the real `clat` binary, against an
 * authorization server on 127.0.0.1 (mini-as) and the MCP server it protects:
 * - the server forgot the client CLAT registered (expired, purged): the refresh is refused with
 *   `invalid_client`, and the `clat mcp login` the status names registers anew and connects. The
 *   binary before kept the dead client, sent it to the authorization page, which refuses it
 *   without a redirect, and waited 5 minutes;
 * - a request to the loopback callback that is not this login's (a wrong `state`, from an old tab
 *   or another local program) is answered and ignored, and the login completes. Before, it ended
 *   the login with "came from the wrong issuer".
 * @module
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { assertBuilt, type ClatResult, CliSandbox, parseJsonOutput } from '../cli/support.js';
import { type MiniAs, startMiniAs } from '../fixtures/oauth/mini-as.js';
import {
  type ProtectedServer,
  startProtectedMcpServer,
} from '../fixtures/oauth/protected-mcp-server.js';
import { BROWSER, readTokenFile } from './oauth-world.js';

interface StatusJson {
  servers: { name: string; state: string; login?: string }[];
}

let sandbox: CliSandbox;
let as: MiniAs;
let mcp: ProtectedServer;

function clat(args: string[], env: Record<string, string> = {}): Promise<ClatResult> {
  return sandbox.run(args, { env: { BROWSER, ...env }, timeoutMs: 60_000 });
}

async function stateOf(): Promise<string | undefined> {
  const status = parseJsonOutput<StatusJson>(await clat(['mcp', '--json']));
  return status.servers.find((server) => server.name === 'remote')?.state;
}

beforeAll(assertBuilt);
beforeEach(async () => {
  sandbox = new CliSandbox();
  await sandbox.setup();
  // Access tokens that expire at once: every command after the login refreshes.
  as = await startMiniAs({ accessTtl: 1 });
  const server = as;
  mcp = await startProtectedMcpServer({
    validate: (token, resource) => server.validate(token, resource),
    metadata: ({ resource }) => ({
      resource,
      authorization_servers: [server.issuer],
      scopes_supported: ['mcp:read'],
    }),
  });
  await sandbox.writeMcp({ mcpServers: { remote: { url: mcp.url } } });
  expect((await clat(['trust'])).code).toBe(0);
});
afterEach(async () => {
  await mcp?.close();
  await as?.close();
  await sandbox.cleanup();
});

describe('a login the authorization server no longer accepts', () => {
  it('forgets a registered client the server refuses, so the next login registers anew', async () => {
    const login = await clat(['mcp', 'login', 'remote']);
    expect(login.code, login.stderr).toBe(0);
    expect(as.registrations).toHaveLength(1);
    const first = (await readTokenFile(sandbox.home)).record.client.clientId;

    // The server forgets every client; the next refresh is refused with invalid_client.
    as.clients.clear();
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    expect(await stateOf()).toBe('needs-login');
    const { record } = await readTokenFile(sandbox.home);
    expect(record.tokens).toBeUndefined();
    expect(record.client).toBeUndefined();

    const again = await clat(['mcp', 'login', 'remote']);
    expect(again.code, again.stderr).toBe(0);
    expect(as.registrations).toHaveLength(2);
    const second = (await readTokenFile(sandbox.home)).record.client.clientId;
    expect(second).not.toBe(first);
    const call = await clat(['tools', 'remote']);
    expect(call.code, call.stderr).toBe(0);
  }, 120_000);

  it('keeps waiting past a callback request of another login, then completes', async () => {
    const strayLog = join(sandbox.root, 'stray.log');
    const login = await clat(['mcp', 'login', 'remote'], { OAUTH_BROWSER_STRAY: strayLog });
    expect(login.code, login.stderr).toBe(0);
    expect(await readFile(strayLog, 'utf8')).toBe('400\n');
    expect(`${login.stdout}${login.stderr}`).not.toContain('stray-code');
    expect(await stateOf()).toBe('connected');
  }, 120_000);
});

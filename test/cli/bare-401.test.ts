/**
 * A server that answers 401 to everything, with no `WWW-Authenticate` challenge and no OAuth
 * metadata (a token-protected API, not an OAuth server). `clat mcp login` used to try the
 * assumed default /register and fail with `"response" content-type must be application/json`;
 * it now says in one sentence that the server publishes no OAuth metadata and names the
 * `clat mcp add … --header` that gives it a static token. Its status said "needs login" and
 * pointed to that failing login; it now says the same sentence, found with GETs only.
 *
 * The same login asked of a server that wants no credentials at all said that too ("probably
 * expects a static Authorization header"); it now says the server needs no login (exit 0,
 * nothing stored), or, for a URL that answers 404, to check the URL.
 */
import { readdir } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { parseJsonOutput, staticTokenArgs, useCliSandbox } from './support.js';

let server: Server | undefined;
let origin = '';
const seen: string[] = [];
/** What the server answers to the MCP URL: 401 (a token API), 200 (open), 404 (wrong URL). */
let answer: 401 | 200 | 404 = 401;

const sandbox = useCliSandbox(
  async () => {
    seen.length = 0;
    answer = 401;
    server = createServer((req, res) => {
      seen.push(`${req.method} ${req.url}`);
      req.resume();
      if (answer === 401) {
        res.writeHead(401, { 'content-type': 'text/plain' }).end('unauthorized');
      } else if (answer === 200 && req.method === 'POST' && req.url === '/mcp') {
        res
          .writeHead(200, { 'content-type': 'application/json' })
          .end('{"jsonrpc":"2.0","id":"clat-auth-probe","result":{}}');
      } else res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
    });
    await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    await sandbox.run(['trust']);
    await sandbox.writeMcp({ mcpServers: { bare: { url: `${origin}/mcp` } } });
  },
  {
    teardown: () =>
      new Promise<void>((resolve) => {
        server?.closeAllConnections();
        server?.close(() => resolve());
      }),
  },
);

describe('a 401 server without OAuth metadata', () => {
  it('is shown as failed with the static-header command, never as needing a login', async () => {
    const hint = `so it probably expects a static Authorization header instead of a login; if it takes a token, run: clat mcp add 'bare' --url '${origin}/mcp' --header "Authorization: Bearer <token>" --force`;
    const status = await sandbox.run(['mcp']);
    expect(status.stdout).toMatch(/bare\s+http\s+failed/);
    expect(status.stdout).toContain(
      `MCP server at ${origin} answered HTTP 401 and publishes no OAuth metadata (no resource_metadata challenge in its 401, no /.well-known/oauth-protected-resource, no authorization server metadata), ${hint}`,
    );
    expect(status.stdout + status.stderr).not.toContain('needs login');
    expect(status.stdout + status.stderr).not.toContain('clat mcp login');
    // Found out with GETs of the metadata documents only: nothing registered.
    expect(seen).toContain('GET /.well-known/oauth-protected-resource/mcp');
    expect(seen).not.toContain('POST /register');

    const json = await sandbox.run(['mcp', '--json']);
    const [server] = parseJsonOutput<{ servers: { state: string; failure?: string }[] }>(
      json,
    ).servers;
    expect(server?.state).toBe('failed');
    expect(server?.failure).toContain(hint);

    // The other sources still list their tools.
    const tools = await sandbox.run(['tools']);
    expect(tools.code).toBe(0);
    expect(tools.stdout + tools.stderr).not.toContain('clat mcp login');
  });

  it('login says it publishes no OAuth metadata and names the static-header command', async () => {
    const login = await sandbox.run(['mcp', 'login', 'bare'], { env: { BROWSER: 'false' } });
    expect(login.code).toBe(1);
    expect(login.stdout).toBe('');
    expect(login.stderr).toContain(
      `login to bare failed: MCP server at ${origin} publishes no OAuth metadata (no resource_metadata challenge in its 401, no /.well-known/oauth-protected-resource, no authorization server metadata) and its default ${origin}/register failed (`,
    );
    expect(login.stderr).toContain(
      `so it probably expects a static Authorization header instead of a login; if it takes a token, run: clat mcp add 'bare' --url '${origin}/mcp' --header "Authorization: Bearer <token>" --force`,
    );
    expect(seen).toContain('GET /.well-known/oauth-protected-resource/mcp');
    expect(seen).toContain('POST /register');

    // The named command works: the entry now sends the token, and no login is offered.
    const added = await sandbox.run(
      staticTokenArgs('bare', `${origin}/mcp`, 'tok-0123456789abcdef'),
    );
    expect(added.stderr).toBe('');
    expect(added.code).toBe(0);
    const status = await sandbox.run(['mcp']);
    expect(status.stdout).not.toContain('needs login');
    expect(status.stdout).not.toContain('tok-0123456789abcdef');
  });
});

describe('a login asked of a server that wants no credentials', () => {
  it('says it needs no login when it answers without credentials, and stores nothing', async () => {
    answer = 200;
    const login = await sandbox.run(['mcp', 'login', 'bare'], { env: { BROWSER: 'false' } });
    expect(login.stderr).toBe('');
    expect(login.code).toBe(0);
    expect(login.stdout).toBe(
      `bare needs no login: MCP server at ${origin} answered a request without credentials (HTTP 200) and publishes no OAuth metadata (no /.well-known/oauth-protected-resource, no authorization server metadata); nothing was stored\n`,
    );
    expect(login.stdout).not.toContain('static Authorization header');
    expect(await readdir(sandbox.home)).not.toContain('oauth');
  });

  it('says to check the URL when it answers 404', async () => {
    answer = 404;
    const login = await sandbox.run(['mcp', 'login', 'bare'], { env: { BROWSER: 'false' } });
    expect(login.code).toBe(1);
    expect(login.stderr).toBe(
      `clat: login to bare failed: MCP server at ${origin} answered HTTP 404 at ${origin}/mcp and publishes no OAuth metadata (no /.well-known/oauth-protected-resource, no authorization server metadata); check the server's URL [CLI_LOGIN_FAILED]\n`,
    );
  });
});

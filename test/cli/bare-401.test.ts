/**
 * A server that answers 401 to everything, with no `WWW-Authenticate` challenge and no OAuth
 * metadata (a token-protected API, not an OAuth server). `clat mcp login` used to try the
 * assumed default /register and fail with `"response" content-type must be application/json`;
 * it now says in one sentence that the server publishes no OAuth metadata and names the
 * `clat mcp add … --header` that gives it a static token. Its status said "needs login" and
 * pointed to that failing login; it now says the same sentence, found with GETs only.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { parseJsonOutput, staticTokenArgs, useCliSandbox } from './support.js';

let server: Server | undefined;
let origin = '';
const seen: string[] = [];

const sandbox = useCliSandbox(
  async () => {
    seen.length = 0;
    server = createServer((req, res) => {
      seen.push(`${req.method} ${req.url}`);
      req.resume();
      res.writeHead(401, { 'content-type': 'text/plain' }).end('unauthorized');
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

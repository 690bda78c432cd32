/**
 * A token-protected HTTP MCP server (401 without a token, no OAuth metadata) through
 * `clat-gateway`: the gateway's status names the `clat mcp add … --header` that gives it a
 * token, never a login that would fail; that command, run with the real `clat` binary, works,
 * and the next gateway serves the server's tools. The token appears in no gateway output.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { toNodeHandler } from '@modelcontextprotocol/node';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { createMcpHandler, McpServer } from '@modelcontextprotocol/server';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import * as z from 'zod/v4';
import { assertBuilt, CliSandbox, staticTokenArgs } from '../cli/support.js';
import { gatewayStatus, sandboxGatewayClient } from './support.js';

const TOKEN = 'tok-5e1f0a9c3b7d2468';

let sandbox: CliSandbox;
let server: Server | undefined;
let origin = '';
/** Requests the server saw: method, path and whether they carried the token. */
const seen: string[] = [];
const clients: Client[] = [];

beforeAll(assertBuilt);
beforeEach(async () => {
  seen.length = 0;
  const handler = toNodeHandler(
    createMcpHandler(() => {
      const mcp = new McpServer({ name: 'token-protected', version: '1.0.0' });
      mcp.registerTool(
        'echo',
        { description: 'Echoes its text', inputSchema: z.object({ text: z.string() }) },
        async ({ text }) => ({ content: [{ type: 'text', text: `echo: ${text}` }] }),
      );
      return mcp;
    }),
  );
  server = createServer((req, res) => {
    const authorized = req.headers.authorization === `Bearer ${TOKEN}`;
    seen.push(`${req.method} ${req.url}${authorized ? ' (token)' : ''}`);
    if (!authorized) {
      req.resume();
      res.writeHead(401, { 'content-type': 'text/plain' }).end('unauthorized');
      return;
    }
    // Node's own request type declares `method` optional, which the SDK's type does not.
    void handler(req as Parameters<typeof handler>[0], res);
  });
  await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  sandbox = new CliSandbox();
  await sandbox.setup();
  await sandbox.run(['trust']);
  await sandbox.writeMcp({ mcpServers: { bare: { url: `${origin}/mcp` } } });
});
afterEach(async () => {
  for (const client of clients.splice(0)) await client.close().catch(() => {});
  await new Promise<void>((resolve) => {
    server?.closeAllConnections();
    server?.close(() => resolve());
  });
  await sandbox.cleanup();
});

async function gatewayClient(): Promise<{ client: Client; stderr: () => string }> {
  const connected = await sandboxGatewayClient(sandbox, 'gateway-bare-401-e2e');
  clients.push(connected.client);
  return connected;
}

describe('clat-gateway and a token-protected server without OAuth metadata', () => {
  it('names the static-header command, which works, instead of a login', async () => {
    const before = await gatewayClient();
    // The first listing waits for the initial surface, as the status then shows it.
    expect((await before.client.listTools()).tools.map((tool) => tool.name)).not.toContain(
      'mcp_bare_echo',
    );
    const shown = await gatewayStatus(before.client);
    const [bare] = (
      JSON.parse(shown) as { servers: Array<{ name: string; state: string; failure?: string }> }
    ).servers;
    expect(bare).toMatchObject({ name: 'bare', state: 'failed' });
    expect(bare?.failure).toContain(
      `MCP server at ${origin} answered HTTP 401 and publishes no OAuth metadata`,
    );
    expect(bare?.failure).toContain(
      `so it probably expects a static Authorization header instead of a login; if it takes a token, run: clat mcp add 'bare' --url '${origin}/mcp' --header "Authorization: Bearer <token>" --force`,
    );
    expect(shown).not.toContain('needs-login');
    expect(shown).not.toContain('clat mcp login');
    expect(seen).not.toContain('POST /register');
    await before.client.close();

    // The command the status names, with the token in place of <token>, through `clat`.
    const added = await sandbox.run(staticTokenArgs('bare', `${origin}/mcp`, TOKEN));
    expect(added.stderr).toBe('');
    expect(added.code).toBe(0);

    const after = await gatewayClient();
    const tools = (await after.client.listTools()).tools.map((tool) => tool.name);
    expect(tools).toContain('mcp_bare_echo');
    const call = await after.client.callTool({ name: 'mcp_bare_echo', arguments: { text: 'hi' } });
    expect(call.isError).not.toBe(true);
    expect((call.content as Array<{ text: string }>)[0]?.text).toBe('echo: hi');
    expect(seen).toContain('POST /mcp (token)');
    const connected = await gatewayStatus(after.client);
    expect(connected).toContain('"state": "connected"');
    expect(connected + after.stderr()).not.toContain(TOKEN);
  });
});

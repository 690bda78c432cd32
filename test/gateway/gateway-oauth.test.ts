/**
 * An OAuth-protected HTTP MCP server through `clat-gateway`: before `clat mcp login` the gateway
 * reports it as needing a login (with the command that does it, which works from any directory:
 * it names the gateway's project, whose own mcp.json holds the server); after the login
 * made by the real `clat` binary, the gateway uses the same owner-only token store and serves
 * the server's tools to an SDK client. Real OpenID provider and protected server on 127.0.0.1;
 * the token appears in no gateway output.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { assertBuilt, CliSandbox, shownCommandArgs } from '../cli/support.js';
import { BROWSER, type OAuthWorld, readTokenFile, startOAuthWorld } from '../oauth/oauth-world.js';
import { gatewayStatus, sandboxGatewayClient } from './support.js';

let sandbox: CliSandbox;
let world: OAuthWorld;
const clients: Client[] = [];

beforeAll(assertBuilt);
beforeEach(async () => {
  sandbox = new CliSandbox();
  await sandbox.setup();
  world = await startOAuthWorld(sandbox);
  // The project names the server, so the login must name the project to find it.
  await sandbox.writeMcp({ mcpServers: {} });
  await mkdir(join(sandbox.project, '.clat'));
  await writeFile(
    join(sandbox.project, '.clat', 'mcp.json'),
    JSON.stringify({ mcpServers: { remote: { url: world.mcp.url } } }),
  );
  await sandbox.run(['trust']);
});
afterEach(async () => {
  for (const client of clients.splice(0)) await client.close().catch(() => {});
  await world?.close();
  await sandbox.cleanup();
});

async function gatewayClient(): Promise<{ client: Client; stderr: () => string }> {
  const connected = await sandboxGatewayClient(sandbox, 'gateway-oauth-e2e');
  clients.push(connected.client);
  return connected;
}

describe('clat-gateway and OAuth', () => {
  it("needs clat's login first, then serves the server with the token clat stored", async () => {
    const before = await gatewayClient();
    const tools = (await before.client.listTools()).tools.map((tool) => tool.name);
    expect(tools).not.toContain('mcp_remote_whoami');
    const waiting = JSON.parse(await gatewayStatus(before.client)) as {
      servers: Array<{ name: string; state: string; login?: string; failure?: string }>;
    };
    expect(waiting.servers).toEqual([
      expect.objectContaining({
        name: 'remote',
        state: 'needs-login',
        login: `clat mcp login -C ${sandbox.project} remote`,
        // The gateway mounts at its start: the status says a restart follows the login.
        failure: `needs login: run \`clat mcp login -C ${sandbox.project} remote\`, then restart clat-gateway to mount it`,
      }),
    ]);
    await before.client.close();

    // The command the status names works as written, pasted in a shell anywhere.
    const shown = waiting.servers[0]?.login ?? '';
    const login = await sandbox.run(shownCommandArgs(shown), {
      cwd: sandbox.root,
      env: { BROWSER },
    });
    expect(login.code).toBe(0);
    const token = (await readTokenFile(sandbox.home)).record.tokens.accessToken;

    const after = await gatewayClient();
    const listed = (await after.client.listTools()).tools.map((tool) => tool.name);
    expect(listed).toContain('mcp_remote_whoami');
    const call = await after.client.callTool({ name: 'mcp_remote_whoami', arguments: {} });
    expect(call.isError).not.toBe(true);
    expect((call.content as Array<{ text: string }>)[0]?.text).toBe('hello, authorized caller');
    expect(world.mcp.authorizations).toContain(`Bearer ${token}`);
    const connected = await gatewayStatus(after.client);
    expect(connected).toContain('"state": "connected"');
    expect(connected).not.toContain(token);
    expect(after.stderr()).not.toContain(token);
  });
});

/**
 * `clat-gateway --http`: the real binary on 127.0.0.1 with an ephemeral port. The official SDK v1
 * and v2 clients connect with the printed bearer token; requests without it, with a wrong one,
 * with a foreign Origin or a rebinding Host are refused; non-loopback binds need --allow-remote.
 */
import { execFile } from 'node:child_process';
import { request } from 'node:http';
import {
  Client as ClientV2,
  StreamableHTTPClientTransport as HttpV2,
} from '@modelcontextprotocol/client';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as HttpV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterEach, describe, expect, it } from 'vitest';
import {
  GATEWAY_BIN,
  type GatewayWorld,
  gatewayWorld,
  type HttpGatewayProcess,
  startHttpGateway,
} from './support.js';

let world: GatewayWorld | undefined;
let child: HttpGatewayProcess | undefined;
const clients: Array<{ close(): Promise<void> }> = [];

afterEach(async () => {
  for (const client of clients.splice(0)) await client.close().catch(() => {});
  await child?.stop();
  child = undefined;
  await world?.cleanup();
  world = undefined;
});

function post(
  url: string,
  headers: Record<string, string>,
): Promise<{ status: number; body: string }> {
  const body = JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: {
      protocolVersion: '2025-06-18',
      capabilities: {},
      clientInfo: { name: 'raw', version: '0' },
    },
  });
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          ...headers,
        },
      },
      (res) => {
        let text = '';
        res.on('data', (chunk: Buffer) => {
          text += chunk.toString();
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

function textOf(result: object): string {
  const blocks = ((result as { content?: unknown }).content ?? []) as Array<{ text?: string }>;
  return blocks.map((block) => block.text ?? '').join('\n');
}

describe('clat-gateway over Streamable HTTP', () => {
  it('serves SDK v1 and v2 clients with the bearer token and refuses everything else', async () => {
    world = await gatewayWorld();
    child = await startHttpGateway(world, ['--mode', 'read-only']);
    const { url, token, stderr } = child;
    expect(stderr().match(new RegExp(token, 'g'))).toHaveLength(1);
    const auth = { Authorization: `Bearer ${token}` };

    const one = new ClientV1({ name: 'gateway-http-v1', version: '0.0.0' });
    await one.connect(new HttpV1(new URL(url), { requestInit: { headers: auth } }));
    clients.push(one);
    const listed = await one.listTools();
    expect(listed.tools.map((tool) => tool.name)).toEqual(
      expect.arrayContaining(['read_file', 'mcp_everything_echo']),
    );
    const read = await one.callTool({ name: 'read_file', arguments: { path: 'notes.txt' } });
    expect(textOf(read)).toContain('gateway notes');
    const write = await one.callTool({
      name: 'write_file',
      arguments: { path: 'x.txt', content: 'x' },
    });
    expect(write.isError).toBe(true);
    expect(textOf(write)).toContain('PERMISSION_DENIED');

    const two = new ClientV2(
      { name: 'gateway-http-v2', version: '0.0.0' },
      { capabilities: {}, versionNegotiation: { mode: 'auto' } },
    );
    await two.connect(new HttpV2(new URL(url), { requestInit: { headers: auth } }));
    clients.push(two);
    expect(two.getProtocolEra()).toBe('modern');
    const sum = await two.callTool({ name: 'list_files', arguments: { path: '.' } });
    expect(textOf(sum)).toContain('notes.txt');

    expect((await post(url, {})).status).toBe(401);
    expect((await post(url, { Authorization: 'Bearer not-the-token' })).status).toBe(401);
    expect((await post(url, { ...auth, Origin: 'https://evil.example' })).status).toBe(403);
    expect((await post(url, { ...auth, Host: 'evil.example' })).status).toBe(403);
    expect((await post(url, { ...auth, Origin: 'http://localhost:3000' })).status).toBe(200);
  });

  it('refuses a non-loopback bind without --allow-remote', async () => {
    world = await gatewayWorld();
    const w = world;
    const result = await new Promise<{ code: number; stderr: string }>((resolve) => {
      execFile(
        process.execPath,
        [GATEWAY_BIN, '--project', w.project, '--http', '0.0.0.0:8765'],
        { env: w.env, timeout: 30_000 },
        (error, _stdout, stderr) =>
          resolve({ code: typeof error?.code === 'number' ? error.code : 0, stderr }),
      );
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('pass --allow-remote');
  });
});

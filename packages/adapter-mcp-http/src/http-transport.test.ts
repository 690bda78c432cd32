import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { inspect } from 'node:util';
import type { JsonRpcMessage } from '@clat/adapter-mcp';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { encodeHeaderValue } from './http-headers.js';
import { HttpTransport } from './http-transport.js';
import { HttpTransportFactory } from './http-transport-factory.js';

// A real HTTP server on 127.0.0.1 that records what arrived and answers like a legacy server
// (session on initialize, JSON results), or stalls for methods named "stall/*".
interface Seen {
  method: string;
  headers: IncomingHttpHeaders;
  body: Record<string, unknown> | undefined;
}
let server: Server;
let url: string;
let seen: Seen[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const body = text === '' ? undefined : (JSON.parse(text) as Record<string, unknown>);
      seen.push({ method: req.method ?? '', headers: req.headers, body });
      if (req.method !== 'POST') {
        res.writeHead(200).end();
        return;
      }
      if (body?.id === undefined) {
        res.writeHead(202).end();
        return;
      }
      if (String(body.method).startsWith('stall/')) return;
      const result =
        body.method === 'initialize' ? { protocolVersion: '2025-06-18', capabilities: {} } : {};
      res.writeHead(200, { 'content-type': 'application/json', 'mcp-session-id': 'sess-42' });
      res.end(JSON.stringify({ jsonrpc: '2.0', id: body.id, result }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp?token=path-secret-1234`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});
beforeEach(() => {
  seen = [];
});

const SECRET = 'Bearer unit-secret-abcdef123456';

function connect(extra: Partial<ConstructorParameters<typeof HttpTransport>[0]> = {}) {
  const transport = new HttpTransport({ url, headers: { Authorization: SECRET }, ...extra });
  const inbound: JsonRpcMessage[] = [];
  transport.onmessage = (m) => inbound.push(m);
  return { transport, inbound };
}

const modernMeta = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': {},
};

describe('HttpTransport headers and sessions', () => {
  it('legacy: session and negotiated version are echoed after initialize, then DELETE on close', async () => {
    const { transport, inbound } = connect();
    await transport.send({ jsonrpc: '2.0', id: 1, method: 'initialize', params: {} });
    await transport.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    await transport.send({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
    await transport.close();
    expect(inbound).toHaveLength(2);
    const [init, initialized, list] = seen.filter((request) => request.method === 'POST');
    expect(init?.headers['mcp-session-id']).toBeUndefined();
    expect(init?.headers['mcp-protocol-version']).toBeUndefined();
    expect(init?.headers.accept).toBe('application/json, text/event-stream');
    expect(init?.headers['content-type']).toBe('application/json');
    expect(init?.headers.authorization).toBe(SECRET);
    for (const later of [initialized, list]) {
      expect(later?.headers['mcp-session-id']).toBe('sess-42');
      expect(later?.headers['mcp-protocol-version']).toBe('2025-06-18');
      expect(later?.headers['mcp-method']).toBeUndefined();
    }
    // The session's standalone stream: a GET with the same session and version.
    const get = seen.find((request) => request.method === 'GET');
    expect(get?.headers.accept).toBe('text/event-stream');
    expect(get?.headers['mcp-session-id']).toBe('sess-42');
    expect(get?.headers['mcp-protocol-version']).toBe('2025-06-18');
    expect(get?.headers.authorization).toBe(SECRET);
    const del = seen.at(-1);
    expect(del?.method).toBe('DELETE');
    expect(del?.headers['mcp-session-id']).toBe('sess-42');
  });

  it('reports the byte length of a one-message JSON body with the message it carries', async () => {
    const transport = new HttpTransport({ url, headers: { Authorization: SECRET } });
    const sizes: (number | undefined)[] = [];
    transport.onmessage = (_message, frameBytes) => sizes.push(frameBytes);
    await transport.send({ jsonrpc: '2.0', id: 7, method: 'ping' });
    await transport.close();
    expect(sizes).toEqual([
      Buffer.byteLength(JSON.stringify({ jsonrpc: '2.0', id: 7, result: {} })),
    ]);
  });

  it("protocol headers replace a caller's same-named headers whatever their case", async () => {
    const { transport } = connect({
      headers: { Authorization: SECRET, Accept: 'text/plain', 'Content-Type': 'text/plain' },
    });
    await transport.send({ jsonrpc: '2.0', id: 1, method: 'ping' });
    await transport.close();
    expect(seen[0]?.headers.accept).toBe('application/json, text/event-stream');
    expect(seen[0]?.headers['content-type']).toBe('application/json');
    expect(seen[0]?.headers.authorization).toBe(SECRET);
  });

  it('setProtocolVersion overrides the header of later legacy requests', async () => {
    const { transport } = connect();
    transport.setProtocolVersion('2025-03-26');
    await transport.send({ jsonrpc: '2.0', id: 1, method: 'ping' });
    await transport.close();
    expect(seen[0]?.headers['mcp-protocol-version']).toBe('2025-03-26');
  });

  it('modern: version from _meta, Mcp-Method and Mcp-Name (base64 when not plain), no session', async () => {
    const { transport } = connect();
    await transport.send({ jsonrpc: '2.0', id: 1, method: 'initialize', params: {} });
    await transport.send({
      jsonrpc: '2.0',
      id: 2,
      method: 'tools/call',
      params: { name: 'wetter-übersicht', arguments: {}, _meta: modernMeta },
    });
    await transport.send({
      jsonrpc: '2.0',
      id: 3,
      method: 'resources/read',
      params: { uri: 'file:///a.txt', _meta: modernMeta },
    });
    const [, call, read] = seen;
    expect(call?.headers['mcp-protocol-version']).toBe('2026-07-28');
    expect(call?.headers['mcp-method']).toBe('tools/call');
    expect(call?.headers['mcp-name']).toBe(encodeHeaderValue('wetter-übersicht'));
    expect(call?.headers['mcp-name']).toMatch(/^=\?base64\?.+\?=$/);
    expect(call?.headers['mcp-session-id']).toBeUndefined();
    expect(read?.headers['mcp-name']).toBe('file:///a.txt');
    await transport.close();
  });

  it('encodes header values per the 2026-07-28 rules', () => {
    expect(encodeHeaderValue('get_weather')).toBe('get_weather');
    expect(encodeHeaderValue(' padded')).toBe(
      `=?base64?${Buffer.from(' padded').toString('base64')}?=`,
    );
    expect(encodeHeaderValue('=?base64?x?=')).toMatch(/^=\?base64\?/);
    expect(encodeHeaderValue('a\nb')).toMatch(/^=\?base64\?/);
  });

  it('a modern cancel aborts the stream without posting a notification; legacy posts it', async () => {
    const { transport } = connect();
    const settle = (p: Promise<void>) =>
      p.then(
        () => 'resolved',
        (error: unknown) => error,
      );
    const modern = settle(
      transport.send({
        jsonrpc: '2.0',
        id: 7,
        method: 'stall/modern',
        params: { _meta: modernMeta },
      }),
    );
    const legacy = settle(transport.send({ jsonrpc: '2.0', id: 8, method: 'stall/legacy' }));
    await new Promise((resolve) => setTimeout(resolve, 100));
    await transport.send({
      jsonrpc: '2.0',
      method: 'notifications/cancelled',
      params: { requestId: 7 },
    });
    expect(await modern).toMatchObject({ code: 'HTTP_CANCELLED' });
    await transport.send({
      jsonrpc: '2.0',
      method: 'notifications/cancelled',
      params: { requestId: 8 },
    });
    expect(await legacy).toMatchObject({ code: 'HTTP_CANCELLED' });
    const cancels = seen.filter((s) => s.body?.method === 'notifications/cancelled');
    expect(cancels.map((s) => JSON.stringify(s.body?.params))).toEqual([
      JSON.stringify({ requestId: 8 }),
    ]);
    await transport.close();
  });

  it('refuses an outbound message above the cap without posting it', async () => {
    const { transport } = connect({ maxMessageBytes: 1024 });
    await expect(
      transport.send({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { x: 'y'.repeat(2000) },
      }),
    ).rejects.toMatchObject({ code: 'HTTP_BODY_TOO_LARGE' });
    expect(seen).toEqual([]);
    await transport.close();
  });
});

describe('HttpTransport secrets stay in memory', () => {
  it('rejects a bad header naming it, never quoting its value', () => {
    const bad = 'Bearer leaked-secret-9876\r\nX-Injected: 1';
    const attempt = () => new HttpTransportFactory({ url, headers: { Authorization: bad } });
    expect(attempt).toThrow(/"Authorization"/);
    try {
      attempt();
    } catch (error) {
      expect(String(error)).not.toContain('leaked-secret');
      expect(String(error)).not.toContain('path-secret');
      expect((error as { code: string }).code).toBe('HTTP_CONFIG_INVALID');
    }
    expect(() => new HttpTransportFactory({ url: 'ftp://example.com/x' })).toThrow(/http or https/);
    expect(() => new HttpTransportFactory({ url: 'http://user:pw-secret@127.0.0.1/' })).toThrow(
      /must not embed credentials/,
    );
  });

  it('never exposes headers through inspect, JSON, diagnostics or errors', async () => {
    const factory = new HttpTransportFactory({ url, headers: { Authorization: SECRET } });
    const transport = factory.open();
    await transport.send({ jsonrpc: '2.0', id: 1, method: 'initialize', params: {} });
    const surfaces = [
      inspect(factory, { depth: 10, showHidden: true }),
      inspect(transport, { depth: 10, showHidden: true }),
      JSON.stringify(factory),
      JSON.stringify(transport),
      JSON.stringify(transport.diagnostics()),
    ];
    for (const text of surfaces) {
      expect(text).not.toContain('unit-secret');
      expect(text).not.toContain('path-secret');
      expect(text).not.toContain('sess-42');
    }
    expect(JSON.stringify(transport.diagnostics())).toContain('127.0.0.1');
    expect(factory.probeIsolation).toBe('shared');
    expect(factory.kind).toBe('http');
    await transport.close();
  });
});

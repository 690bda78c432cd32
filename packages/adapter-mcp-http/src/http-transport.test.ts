import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { inspect } from 'node:util';
import type { JsonRpcMessage } from '@clat/adapter-mcp';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
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

// What the client core passes once initialize settled 2025-06-18 (legacy era).
const LEGACY = { headers: { 'mcp-protocol-version': '2025-06-18' } };

describe('HttpTransport headers and sessions', () => {
  it('legacy: the session is echoed after initialize with the given version, then DELETE on close', async () => {
    const { transport, inbound } = connect();
    await transport.send({ jsonrpc: '2.0', id: 1, method: 'initialize', params: {} });
    await transport.send({ jsonrpc: '2.0', method: 'notifications/initialized' }, LEGACY);
    await transport.send({ jsonrpc: '2.0', id: 2, method: 'tools/list' }, LEGACY);
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
    expect(del?.headers['mcp-protocol-version']).toBe('2025-06-18');
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

  it('modern: a request sent with Mcp-Method carries exactly its headers and never the session', async () => {
    const { transport } = connect();
    await transport.send({ jsonrpc: '2.0', id: 1, method: 'initialize', params: {} });
    const modern = {
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': 'tools/call',
      'mcp-name': '=?base64?d2V0dGVyLcO8YmVyc2ljaHQ=?=',
      'mcp-param-region': 'eu',
    };
    await transport.send(
      { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'wetter-übersicht' } },
      { headers: modern },
    );
    const [, call] = seen;
    expect(call?.headers).toMatchObject(modern);
    expect(call?.headers['mcp-session-id']).toBeUndefined();
    expect(transport.protocolVersion).toBeUndefined();
    await transport.close();
  });

  it("an aborted signal ends the request's POST; the transport posts no cancel of its own", async () => {
    const { transport } = connect();
    const settle = (p: Promise<void>) =>
      p.then(
        () => 'resolved',
        (error: unknown) => error,
      );
    const modernCaller = new AbortController();
    const legacyCaller = new AbortController();
    const modern = settle(
      transport.send(
        { jsonrpc: '2.0', id: 7, method: 'stall/modern' },
        { headers: { 'mcp-method': 'stall/modern' }, signal: modernCaller.signal },
      ),
    );
    const legacy = settle(
      transport.send(
        { jsonrpc: '2.0', id: 8, method: 'stall/legacy' },
        { signal: legacyCaller.signal },
      ),
    );
    // Both POSTs reached the server (and stall there) before their callers give up.
    for (let i = 0; i < 500 && seen.length < 2; i++) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    modernCaller.abort();
    expect(await modern).toMatchObject({ code: 'HTTP_CANCELLED' });
    legacyCaller.abort();
    expect(await legacy).toMatchObject({ code: 'HTTP_CANCELLED' });
    // A signal aborted before the send never reaches the server.
    const early = settle(
      transport.send({ jsonrpc: '2.0', id: 9, method: 'ping' }, { signal: AbortSignal.abort() }),
    );
    expect(await early).toMatchObject({ code: 'HTTP_CANCELLED' });
    expect(seen.map((s) => s.body?.method).sort()).toEqual(['stall/legacy', 'stall/modern']);
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

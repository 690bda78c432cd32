import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { JsonRpcMessage } from '@clat/adapter-mcp';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { HttpTransport } from './http-transport.js';
import { SSE_RESUME_ATTEMPTS } from './sse-limits.js';

// A real HTTP server on 127.0.0.1: a legacy session (initialize → JSON with a session id, 202 for
// notifications) whose GET answers come from the current test's `onGet`.
interface Get {
  at: number;
  lastEventId: string | undefined;
  req: IncomingMessage;
}
type OnGet = (res: ServerResponse, index: number) => void;
let server: Server;
let url: string;
let gets: Get[] = [];
let onGet: OnGet = (res) => res.writeHead(405).end();

beforeAll(async () => {
  server = createServer((req, res) => {
    if (req.method === 'GET') {
      const header = req.headers['last-event-id'];
      gets.push({
        at: Date.now(),
        lastEventId: typeof header === 'string' ? header : undefined,
        req,
      });
      onGet(res, gets.length - 1);
      return;
    }
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const body = text === '' ? undefined : (JSON.parse(text) as Record<string, unknown>);
      if (req.method !== 'POST' || body?.id === undefined) {
        res.writeHead(req.method === 'POST' ? 202 : 200).end();
        return;
      }
      const result =
        body.method === 'initialize' ? { protocolVersion: '2025-11-25', capabilities: {} } : {};
      res.writeHead(200, { 'content-type': 'application/json', 'mcp-session-id': 'sess-get' });
      res.end(JSON.stringify({ jsonrpc: '2.0', id: body.id, result }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});
beforeEach(() => {
  gets = [];
});

const SSE = { 'content-type': 'text/event-stream' };

function event(fields: { id?: string; retry?: number; data?: unknown }): string {
  const lines: string[] = [];
  if (fields.id !== undefined) lines.push(`id: ${fields.id}`);
  if (fields.retry !== undefined) lines.push(`retry: ${fields.retry}`);
  if (fields.data !== undefined) lines.push(`data: ${JSON.stringify(fields.data)}`);
  return `${lines.join('\n')}\n\n`;
}

/**
 * A transport through initialize and initialized, which opens the GET stream; `states` collects
 * what it reports to `ongetstreamstate`.
 */
async function session(): Promise<{
  transport: HttpTransport;
  inbound: JsonRpcMessage[];
  states: string[];
}> {
  const transport = new HttpTransport({ url });
  const inbound: JsonRpcMessage[] = [];
  const states: string[] = [];
  transport.onmessage = (m) => inbound.push(m);
  transport.ongetstreamstate = (state) => states.push(state);
  await transport.send({ jsonrpc: '2.0', id: 1, method: 'initialize', params: {} });
  await transport.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
  return { transport, inbound, states };
}

async function until(check: () => boolean, what: string, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe('the standalone GET stream', () => {
  it('delivers server requests, resumes with Last-Event-ID after the retry: delay', async () => {
    const elicit = { jsonrpc: '2.0', id: 'srv-1', method: 'elicitation/create', params: {} };
    const note = { jsonrpc: '2.0', method: 'notifications/message', params: { data: 'x' } };
    onGet = (res, index) => {
      res.writeHead(200, SSE);
      if (index === 0) {
        // Longer than the default delay, so an early reconnection would show.
        res.end(event({ id: 'e1', retry: 1500, data: note }));
      } else {
        res.write(event({ id: 'e2', data: elicit }));
      }
    };
    const { transport, inbound, states } = await session();
    await until(() => gets.length === 2 && inbound.length === 3, 'the resumed stream');
    expect(inbound.slice(1)).toEqual([note, elicit]);
    expect(gets[0]?.lastEventId).toBeUndefined();
    expect(gets[1]?.lastEventId).toBe('e1');
    expect((gets[1]?.at ?? 0) - (gets[0]?.at ?? 0)).toBeGreaterThanOrEqual(1400);
    expect(transport.getStreamState()).toBe('open');
    expect(transport.diagnostics().detail?.getStream).toBe('open');

    // close() ends the open GET: the server sees its request go away.
    const closed = new Promise<void>((resolve) => gets[1]?.req.once('close', () => resolve()));
    await transport.close();
    await closed;
    expect(transport.getStreamState()).toBe('closed');
    // Every change was reported once, in order: a status view never has to poll.
    expect(states).toEqual(['opening', 'open', 'opening', 'open', 'closed']);
  });

  it('reads 405 as no stream: one GET, no diagnostic', async () => {
    onGet = (res) => res.writeHead(405, { allow: 'POST' }).end();
    const { transport, states } = await session();
    await until(() => transport.getStreamState() === 'none', 'the 405');
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(gets).toHaveLength(1);
    expect(states).toEqual(['opening', 'none']);
    expect(transport.diagnostics().tail).toEqual([]);
    await transport.close();
  });

  it('gives up after streams in a row that end without an event', async () => {
    onGet = (res) => {
      res.writeHead(200, SSE);
      res.end('retry: 20\n\n: keep-alive\n\n');
    };
    const { transport } = await session();
    await until(() => transport.getStreamState() === 'closed', 'giving up');
    expect(gets).toHaveLength(SSE_RESUME_ATTEMPTS);
    expect(transport.diagnostics().tail.join('\n')).toContain(
      `ended ${SSE_RESUME_ATTEMPTS} times in a row without an event`,
    );
    // The connection itself is fine: POSTs still work.
    await transport.send({ jsonrpc: '2.0', id: 2, method: 'ping' });
    await transport.close();
  });

  it('closes the stream on an event over the message cap, keeping the connection', async () => {
    onGet = (res) => {
      res.writeHead(200, SSE);
      res.write(`data: ${'x'.repeat(4096)}`);
    };
    const transport = new HttpTransport({ url, maxMessageBytes: 1024 });
    await transport.send({ jsonrpc: '2.0', id: 1, method: 'initialize', params: {} });
    await transport.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    await until(() => transport.getStreamState() === 'closed', 'the oversized event');
    expect(gets).toHaveLength(1);
    expect(transport.diagnostics().tail.join('\n')).toContain(
      'sent more than 1024 bytes in one event of its GET stream',
    );
    await transport.send({ jsonrpc: '2.0', id: 2, method: 'ping' });
    await transport.close();
  });

  it('is never opened for modern requests', async () => {
    onGet = (res) => res.writeHead(500).end();
    const transport = new HttpTransport({ url });
    const meta = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28' };
    await transport.send({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: meta } });
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(gets).toHaveLength(0);
    expect(transport.getStreamState()).toBe('none');
    await transport.close();
  });
});

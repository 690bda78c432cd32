/**
 * The transport moves bytes only: it sends exactly the headers it is given next to its own, and
 * delivers every result as the server framed it (no initialize sniffing, no tool scan). Pinned
 * with a fake fetch, so every request the transport makes is visible.
 */
import type { JsonRpcMessage } from '@clat/adapter-mcp';
import { afterEach, describe, expect, it } from 'vitest';
import { HttpTransport } from './http-transport.js';

interface Sent {
  method: string;
  headers: Record<string, string>;
  body: Record<string, unknown> | undefined;
}

/** A fetch that records each request and answers it with the next scripted response. */
function fakeFetch(answer: (body: Record<string, unknown> | undefined) => Response) {
  const sent: Sent[] = [];
  const fetch = async (_url: unknown, init?: RequestInit): Promise<Response> => {
    const body =
      typeof init?.body === 'string'
        ? (JSON.parse(init.body) as Record<string, unknown>)
        : undefined;
    sent.push({
      method: init?.method ?? 'GET',
      headers: { ...(init?.headers as Record<string, string>) },
      body,
    });
    return answer(body);
  };
  return { sent, fetch: fetch as typeof globalThis.fetch };
}

function json(value: unknown, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(value), {
    status: 200,
    headers: { 'content-type': 'application/json', ...headers },
  });
}

const OWN = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

// A tool whose x-mcp-header declaration is invalid: the client core drops it, never the transport.
const LISTED = {
  tools: [
    { name: 'fine', inputSchema: { type: 'object' } },
    {
      name: 'bad_header',
      inputSchema: { properties: { a: { type: 'array', 'x-mcp-header': 'A' } } },
    },
  ],
};

const transports: HttpTransport[] = [];
afterEach(async () => {
  await Promise.all(transports.splice(0).map((t) => t.close()));
});

function open(fetch: typeof globalThis.fetch): {
  transport: HttpTransport;
  inbound: JsonRpcMessage[];
} {
  const transport = new HttpTransport({
    url: 'http://127.0.0.1:9/mcp',
    headers: { 'X-Api-Key': 'k-123' },
    fetch,
  });
  transports.push(transport);
  const inbound: JsonRpcMessage[] = [];
  transport.onmessage = (message) => inbound.push(message);
  return { transport, inbound };
}

describe('HttpTransport moves bytes only', () => {
  it('sends exactly the configured, given and own headers; learns no version from a result', async () => {
    const { sent, fetch } = fakeFetch((body) => {
      if (body?.method === 'initialize') {
        return json(
          {
            jsonrpc: '2.0',
            id: body.id,
            result: { protocolVersion: '2025-06-18', capabilities: {} },
          },
          { 'mcp-session-id': 'sess-1' },
        );
      }
      if (body?.id === undefined) return new Response(null, { status: 202 });
      return json({ jsonrpc: '2.0', id: body.id, result: {} });
    });
    const { transport } = open(fetch);
    await transport.send({ jsonrpc: '2.0', id: 1, method: 'initialize', params: {} });
    await transport.send({ jsonrpc: '2.0', id: 2, method: 'ping' });
    const given = { 'mcp-protocol-version': '2025-03-26', 'mcp-param-x': 'y' };
    await transport.send({ jsonrpc: '2.0', method: 'notifications/progress' }, { headers: given });
    await transport.send(
      { jsonrpc: '2.0', id: 3, method: 'tools/call' },
      { headers: { 'mcp-method': 'tools/call', 'mcp-protocol-version': '2026-07-28' } },
    );
    expect(sent.map((s) => s.headers)).toEqual([
      { 'x-api-key': 'k-123', ...OWN },
      // The initialize result named 2025-06-18; without the client's header none is sent.
      { 'x-api-key': 'k-123', ...OWN, 'mcp-session-id': 'sess-1' },
      { 'x-api-key': 'k-123', ...given, ...OWN, 'mcp-session-id': 'sess-1' },
      // Mcp-Method marks a stateless modern request: no session id.
      {
        'x-api-key': 'k-123',
        'mcp-method': 'tools/call',
        'mcp-protocol-version': '2026-07-28',
        ...OWN,
      },
    ]);
    // The version of the last session message is what the transport's own DELETE repeats.
    expect(transport.protocolVersion).toBe('2025-03-26');
    await transport.close();
    expect(sent.at(-1)).toMatchObject({
      method: 'DELETE',
      headers: { 'mcp-session-id': 'sess-1', 'mcp-protocol-version': '2025-03-26' },
    });
  });

  it('delivers a tools/list result as framed, JSON or SSE, invalid x-mcp-header tools included', async () => {
    const { fetch } = fakeFetch((body) => {
      const message = { jsonrpc: '2.0', id: body?.id, result: LISTED };
      if (body?.id === 1) return json(message);
      return new Response(`event: message\ndata: ${JSON.stringify(message)}\n\n`, {
        status: 200,
        headers: { 'content-type': 'text/event-stream' },
      });
    });
    const { transport, inbound } = open(fetch);
    const modern = { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/list' };
    await transport.send({ jsonrpc: '2.0', id: 1, method: 'tools/list' }, { headers: modern });
    await transport.send({ jsonrpc: '2.0', id: 2, method: 'tools/list' }, { headers: modern });
    expect(inbound).toEqual([
      { jsonrpc: '2.0', id: 1, result: LISTED },
      { jsonrpc: '2.0', id: 2, result: LISTED },
    ]);
  });
});

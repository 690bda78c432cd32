import { type HttpTransport, HttpTransportFactory } from '@clat/adapter-mcp-http';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  type HttpFixture,
  startDualEraServer,
  startServerEverything,
  stopAllHttpFixtures,
} from '../fixtures/http-servers/spawn.js';
import { LEGACY_INIT, MODERN, modernMeta, rawPeer } from './rpc-helper.js';

const transports: HttpTransport[] = [];
function open(url: string, headers?: Record<string, string>): HttpTransport {
  const transport = new HttpTransportFactory({ url, headers }).open();
  transports.push(transport);
  return transport;
}

afterEach(async () => {
  await Promise.all(transports.splice(0).map((t) => t.close()));
});
afterAll(stopAllHttpFixtures);

describe('HttpTransport against server-everything (legacy, sessions, SSE)', () => {
  let everything: HttpFixture;
  beforeAll(async () => {
    everything = await startServerEverything();
  });

  it('runs the legacy handshake, echoes the session, lists and calls tools over SSE', async () => {
    const transport = open(`${everything.origin}/mcp`);
    const peer = rawPeer(transport);
    await transport.start();

    // A modern probe is refused the SDK-v1 way: HTTP 400 with a null-id error, delivered as the
    // answer to the probe so the client core can read it.
    const probe = await peer.request('server/discover', { _meta: modernMeta() });
    expect(probe).toMatchObject({ error: { code: -32000 } });
    expect(transport.hasSession).toBe(false);

    const init = await peer.request('initialize', LEGACY_INIT);
    expect(init).toMatchObject({ result: { protocolVersion: '2025-11-25' } });
    expect(transport.hasSession).toBe(true);
    // The version comes from the caller's headers, never from the initialize result.
    expect(transport.protocolVersion).toBeUndefined();
    await peer.notify('notifications/initialized');
    expect(transport.protocolVersion).toBe('2025-11-25');

    const list = await peer.request('tools/list');
    const names = (
      (list as unknown as { result: { tools: { name: string }[] } }).result.tools ?? []
    ).map((t) => t.name);
    expect(names).toContain('echo');
    expect(names).toContain('get-sum');

    const sum = await peer.request('tools/call', { name: 'get-sum', arguments: { a: 2, b: 3 } });
    expect(JSON.stringify(sum)).toContain('5');
    expect(transport.diagnostics().detail).toMatchObject({
      session: 'active',
      protocolVersion: '2025-11-25',
    });
  });

  it('delivers a server request from the SSE stream and POSTs our answer back', async () => {
    const transport = open(`${everything.origin}/mcp`);
    const peer = rawPeer(transport);
    peer.onServerRequest = (request) =>
      request.method === 'elicitation/create'
        ? { action: 'accept', content: { name: 'Ada', check: true } }
        : undefined;
    await peer.request('initialize', LEGACY_INIT);
    await peer.notify('notifications/initialized');
    const list = await peer.request('tools/list');
    expect(JSON.stringify(list)).toContain('trigger-elicitation-request');
    const result = await peer.request('tools/call', {
      name: 'trigger-elicitation-request',
      arguments: {},
    });
    const elicitations = peer.inbound.filter(
      (m) => 'method' in m && m.method === 'elicitation/create',
    );
    expect(elicitations).toHaveLength(1);
    expect(JSON.stringify(result)).toContain('Ada');
    expect(peer.errors).toEqual([]);
  });

  it('sends DELETE for the session on close, and a closed transport refuses to send', async () => {
    const transport = open(`${everything.origin}/mcp`);
    const peer = rawPeer(transport);
    await peer.request('initialize', LEGACY_INIT);
    expect(transport.hasSession).toBe(true);
    await transport.close();
    expect(transport.hasSession).toBe(false);
    expect(peer.closed).toEqual({ error: undefined });
    await expect(peer.request('tools/list')).rejects.toMatchObject({ code: 'HTTP_CLOSED' });
    // The server forgot the session: a fresh transport reusing nothing must initialize again.
    const again = open(`${everything.origin}/mcp`);
    const list = await rawPeer(again).request('tools/list');
    expect(list).toMatchObject({ error: {} });
  });
});

describe('HttpTransport against a dual-era TS SDK v2 server', () => {
  let dual: HttpFixture;
  beforeAll(async () => {
    dual = await startDualEraServer();
  });

  it('sends modern requests with MCP-Protocol-Version, Mcp-Method and Mcp-Name, no session', async () => {
    const transport = open(`${dual.origin}/`, { Authorization: 'Bearer dual-secret-token-1234' });
    const peer = rawPeer(transport);
    const discover = await peer.request('server/discover', { _meta: modernMeta() });
    expect(discover).toMatchObject({ result: { supportedVersions: [MODERN] } });
    const list = await peer.request('tools/list', { _meta: modernMeta() });
    expect(JSON.stringify(list)).toContain('"echo"');
    const call = await peer.request('tools/call', {
      name: 'echo',
      arguments: { text: 'hi' },
      _meta: modernMeta(),
    });
    expect(call).toMatchObject({ result: { content: [{ type: 'text', text: 'echo: hi' }] } });
    await dual.waitFor('"method":"tools/call"');
    const records = dual
      .stderr()
      .split('\n')
      .filter((line) => line.startsWith('REQ '))
      .map((line) => JSON.parse(line.slice(4)) as Record<string, unknown>);
    const callRecord = records.find((r) => r.method === 'tools/call');
    expect(callRecord).toMatchObject({
      mcpMethod: 'tools/call',
      mcpName: 'echo',
      protocolVersion: MODERN,
      session: false,
      authorization: true,
      accept: 'application/json, text/event-stream',
    });
    expect(records.find((r) => r.method === 'server/discover')).toMatchObject({
      mcpMethod: 'server/discover',
      protocolVersion: MODERN,
    });
    expect(transport.hasSession).toBe(false);
  });

  it('carries progress notifications from an SSE response before the result', async () => {
    const transport = open(`${dual.origin}/`);
    const peer = rawPeer(transport);
    const call = await peer.request('tools/call', {
      name: 'slow',
      arguments: { steps: 3 },
      _meta: modernMeta({ progressToken: 'p1' }),
    });
    expect(call).toMatchObject({ result: { content: [{ text: 'done after 3 steps' }] } });
    const progress = peer.inbound.filter(
      (m) => 'method' in m && m.method === 'notifications/progress',
    );
    expect(progress.map((m) => ('params' in m ? m.params?.progress : undefined))).toEqual([
      1, 2, 3,
    ]);
  });

  it('a header/_meta mismatch is a JSON-RPC error the core can read, not a transport failure', async () => {
    const transport = open(`${dual.origin}/`);
    const peer = rawPeer(transport);
    // Unsupported version in _meta: the server answers 400 -32022 naming what it supports.
    const reply = await peer.request('server/discover', {
      _meta: modernMeta({ 'io.modelcontextprotocol/protocolVersion': '1999-01-01' }),
    });
    expect(reply).toMatchObject({ error: { code: -32022 } });
  });

  it('sends the Mcp-Param-* headers the core learned from tools/list; the listing arrives untouched', async () => {
    const transport = open(`${dual.origin}/`);
    const peer = rawPeer(transport);
    const list = await peer.request('tools/list', { _meta: modernMeta() });
    const tools = (list as unknown as { result: { tools: { name: string }[] } }).result.tools;
    // The transport delivers the invalid declaration as the server sent it; the core drops it.
    expect(tools.map((t) => t.name)).toContain('bad_header');
    const dropped: string[] = [];
    const kept = peer.headers.learnTools(tools, (name) => dropped.push(name));
    expect((kept as { name: string }[]).map((t) => t.name)).toContain('forecast');
    expect(dropped).toEqual(['bad_header']);
    expect(peer.errors).toEqual([]);
    // The server rejects a call whose Mcp-Param-* headers are missing or disagree (400 -32020).
    const call = await peer.request('tools/call', {
      name: 'forecast',
      arguments: { region: 'Zürich Nord', days: 3, detailed: true },
      _meta: modernMeta(),
    });
    expect(call).toMatchObject({ result: { content: [{ text: '3 days for Zürich Nord' }] } });
    const plain = await peer.request('tools/call', {
      name: 'forecast',
      arguments: { region: 'eu-west', days: 7 },
      _meta: modernMeta(),
    });
    expect(plain).toMatchObject({ result: { content: [{ text: '7 days for eu-west' }] } });
  });

  it('without the tools/list scan the same call is refused: the headers are what the server checks', async () => {
    const transport = open(`${dual.origin}/`);
    const reply = await rawPeer(transport).request('tools/call', {
      name: 'forecast',
      arguments: { region: 'eu-west', days: 7 },
      _meta: modernMeta(),
    });
    expect(reply).toMatchObject({ error: { code: -32020 } });
  });

  it('passes a legacy initialize through and serves the legacy era on the same endpoint', async () => {
    const transport = open(`${dual.origin}/`);
    const peer = rawPeer(transport);
    const init = await peer.request('initialize', LEGACY_INIT);
    expect(init).toMatchObject({ result: { serverInfo: { name: 'dual-era-fixture' } } });
    await peer.notify('notifications/initialized');
    const list = await peer.request('tools/list');
    expect(JSON.stringify(list)).toContain('"slow"');
  });
});

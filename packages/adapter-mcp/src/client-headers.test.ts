/**
 * The client computes the per-message headers of an exchange-per-message transport (HTTP) from
 * what it negotiated, learns `x-mcp-header` declarations from its own tools/list, and ends the
 * exchange of an abandoned request through the signal it passes. Other transports get no options.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { McpClient } from './client.js';
import { McpErrorCode } from './errors.js';
import {
  complete,
  legacyServer,
  modernServer,
  ScriptedFactory,
  type ScriptedServer,
  settle,
} from './test-support/scripted-server.js';

const clients: McpClient[] = [];
afterEach(async () => {
  vi.useRealTimers();
  await Promise.all(clients.splice(0).map((client) => client.close()));
});

/** A factory whose transports act like HTTP: one exchange per message, a shared probe. */
function httpLike(setup: (server: ScriptedServer, index: number) => void): ScriptedFactory {
  const factory = new ScriptedFactory(setup, 'shared');
  factory.kind = 'http';
  factory.record = { exchangePerMessage: true };
  return factory;
}

async function connect(factory: ScriptedFactory, diagnostics: string[] = []): Promise<McpClient> {
  const client = await McpClient.connect({
    name: 'srv',
    factory,
    onDiagnostic: (line) => diagnostics.push(line),
  });
  clients.push(client);
  return client;
}

const MODERN = '2026-07-28';

const forecast = (header: string) => ({
  name: 'forecast',
  inputSchema: {
    type: 'object',
    properties: { region: { type: 'string', 'x-mcp-header': header }, days: { type: 'integer' } },
  },
});
const invalid = {
  name: 'bad_header',
  inputSchema: { properties: { list: { type: 'array', 'x-mcp-header': 'List' } } },
};

describe('per-message headers (exchange-per-message transports)', () => {
  it('modern: version and method on every request, Mcp-Name and Mcp-Param-* from the tool list', async () => {
    const factory = httpLike((server) => {
      modernServer({ tools: [forecast('Region'), invalid] })(server);
      server.on('tools/call', complete({ content: [] }));
    });
    const diagnostics: string[] = [];
    const client = await connect(factory, diagnostics);
    const tools = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(['forecast']);
    expect(diagnostics.join('\n')).toMatch(/tool "bad_header" of MCP server "srv" skipped: list/);
    await client.callTool('forecast', { region: 'Köln', days: 2 });
    const recorder = factory.recorders[0];
    const heads = recorder?.sent.map((s) => s.options?.headers);
    expect(heads).toEqual([
      { 'mcp-protocol-version': MODERN, 'mcp-method': 'server/discover' },
      { 'mcp-protocol-version': MODERN, 'mcp-method': 'tools/list' },
      {
        'mcp-protocol-version': MODERN,
        'mcp-method': 'tools/call',
        'mcp-name': 'forecast',
        'mcp-param-region': '=?base64?S8O2bG4=?=',
      },
    ]);
    // Every request gets a signal of its own.
    expect(recorder?.sent.every((s) => s.options?.signal instanceof AbortSignal)).toBe(true);
  });

  it('modern: stale Mcp-Param headers (-32020) re-list the tools and retry once with fresh ones', async () => {
    let listed = 0;
    const factory = httpLike((server, index) => {
      modernServer()(server);
      // The server renamed the header between two lists; it checks what the call carried.
      server.on('tools/list', () =>
        complete({ tools: [forecast(listed++ === 0 ? 'Region' : 'Area')] }),
      );
      server.on('tools/call', (request) =>
        factory.recorders[index]?.headersOf(request.id)?.['mcp-param-area'] === 'Bonn'
          ? complete({ content: [{ type: 'text', text: 'ok' }] })
          : { error: { code: -32020, message: 'Mcp-Param-Area header missing' } },
      );
    });
    const diagnostics: string[] = [];
    const client = await connect(factory, diagnostics);
    await client.listTools();
    const result = await client.callTool('forecast', { region: 'Bonn' });
    expect(result.content).toEqual([{ type: 'text', text: 'ok' }]);
    expect(diagnostics.join('\n')).toMatch(/-32020.*re-listing tools and retrying once/);
    const calls = factory.recorders[0]?.sent.filter(
      (s) => 'method' in s.message && s.message.method === 'tools/call',
    );
    expect(calls?.map((s) => s.options?.headers?.['mcp-param-region'])).toEqual([
      'Bonn',
      undefined,
    ]);
    expect(calls?.map((s) => s.options?.headers?.['mcp-param-area'])).toEqual([undefined, 'Bonn']);
  });

  it('legacy: no version before initialize, then the negotiated one on every message', async () => {
    const factory = httpLike((server) => {
      legacyServer('2025-06-18', { tools: [invalid] })(server);
    });
    const client = await connect(factory);
    expect(client.era).toBe('legacy');
    // Legacy servers are not asked to honour x-mcp-header: nothing is dropped.
    expect((await client.listTools()).map((t) => t.name)).toEqual(['bad_header']);
    const sent = factory.recorders[0]?.sent.map((s) => [
      'method' in s.message ? s.message.method : 'response',
      s.options?.headers,
    ]);
    expect(sent).toEqual([
      ['server/discover', { 'mcp-protocol-version': MODERN, 'mcp-method': 'server/discover' }],
      ['initialize', {}],
      ['notifications/initialized', { 'mcp-protocol-version': '2025-06-18' }],
      ['tools/list', { 'mcp-protocol-version': '2025-06-18' }],
    ]);
  });

  it('modern cancel ends the exchange and posts no notification; legacy does both', async () => {
    for (const era of ['modern', 'legacy'] as const) {
      const factory = httpLike((server) => {
        (era === 'modern' ? modernServer() : legacyServer())(server);
        server.on('tools/call', { silent: true });
      });
      const client = await connect(factory);
      const caller = new AbortController();
      const pending = client.callTool('slow', {}, { signal: caller.signal });
      await settle();
      const recorder = factory.recorders[0];
      const call = recorder?.sent.find(
        (s) => 'method' in s.message && s.message.method === 'tools/call',
      );
      expect(call?.options?.signal?.aborted).toBe(false);
      caller.abort();
      await expect(pending).rejects.toMatchObject({ code: McpErrorCode.MCP_CANCELLED });
      await settle();
      expect(call?.options?.signal?.aborted, era).toBe(true);
      const cancels = recorder?.sent.filter(
        (s) => 'method' in s.message && s.message.method === 'notifications/cancelled',
      );
      expect(cancels?.length, era).toBe(era === 'modern' ? 0 : 1);
      if (era === 'legacy') {
        expect(cancels?.[0]?.options?.headers).toEqual({ 'mcp-protocol-version': '2025-11-25' });
      }
    }
  });

  it('a timed-out request ends its exchange too', async () => {
    vi.useFakeTimers();
    const factory = httpLike((server) => {
      modernServer()(server);
      server.on('prompts/get', { silent: true });
    });
    const connecting = McpClient.connect({ name: 'srv', factory, timeouts: { promptGetMs: 50 } });
    await vi.advanceTimersByTimeAsync(0);
    const client = await connecting;
    clients.push(client);
    const outcome = client.getPrompt('p').catch((error: unknown) => error);
    await vi.advanceTimersByTimeAsync(60);
    expect(await outcome).toMatchObject({ code: McpErrorCode.MCP_TIMEOUT });
    const get = factory.recorders[0]?.sent.find(
      (s) => 'method' in s.message && s.message.method === 'prompts/get',
    );
    expect(get?.options?.headers).toMatchObject({ 'mcp-name': 'p' });
    expect(get?.options?.signal?.aborted).toBe(true);
  });

  it('a transport without exchangePerMessage (stdio) gets no options with any message', async () => {
    const factory = new ScriptedFactory((server) => {
      modernServer({ tools: [forecast('Region')] })(server);
      server.on('tools/call', complete({ content: [] }));
    });
    factory.record = { exchangePerMessage: false };
    const client = await connect(factory);
    await client.listTools();
    await client.callTool('forecast', { region: 'x' });
    await client.notify('notifications/roots/list_changed');
    const sent = factory.recorders[0]?.sent ?? [];
    expect(sent.length).toBe(4);
    expect(sent.every((s) => s.options === undefined)).toBe(true);
  });
});

import { LIMITS } from '@clat/kernel';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { McpClient } from './client.js';
import { isMcpError, McpErrorCode } from './errors.js';
import { HOST_SERVICES_EXTENSION } from './host-services-wire.js';
import { MCP_LIMITS } from './limits.js';
import { MODERN_PROTOCOL_VERSION } from './protocol.js';
import { fakeHost } from './test-support/fake-host.js';
import {
  complete,
  legacyServer,
  modernServer,
  ScriptedFactory,
  type ScriptedServer,
  settle,
} from './test-support/scripted-server.js';
import type { Transport, TransportFactory } from './transport.js';

const clients: McpClient[] = [];

async function connect(
  factory: ScriptedFactory,
  extra: Partial<Parameters<typeof McpClient.connect>[0]> = {},
) {
  const client = await McpClient.connect({ name: 'srv', factory, ...extra });
  clients.push(client);
  return client;
}

afterEach(async () => {
  vi.useRealTimers();
  await Promise.all(clients.splice(0).map((client) => client.close()));
});

function methods(server: ScriptedServer): string[] {
  return server.received.flatMap((m) => ('method' in m ? [m.method] : []));
}

describe('era negotiation', () => {
  it('falls back to legacy initialize on a fresh transport after a failed probe', async () => {
    const factory = new ScriptedFactory(legacyServer('2025-06-18'));
    const client = await connect(factory);
    expect(client.era).toBe('legacy');
    expect(client.protocolVersion).toBe('2025-06-18');
    expect(client.serverInfo).toEqual({ name: 'legacy-test', version: '1.2.3' });
    expect(factory.opened).toBe(2);
    const [probe, live] = factory.servers as [ScriptedServer, ScriptedServer];
    // The probe transport saw only the probe and was closed; the fresh one never saw the probe.
    expect(methods(probe)).toEqual(['server/discover']);
    expect(probe.closed).toBe(true);
    expect(methods(live)).toEqual(['initialize', 'notifications/initialized']);
    expect(live.closed).toBe(false);
    const init = live.requests('initialize')[0];
    expect(init?.params).toMatchObject({
      protocolVersion: '2025-11-25',
      clientInfo: { name: 'clat' },
      capabilities: {},
    });
  });

  it('treats a silent probe as legacy after the probe deadline', async () => {
    const factory = new ScriptedFactory((server, index) => {
      legacyServer()(server);
      if (index === 0) server.on('server/discover', { silent: true });
    });
    const client = await connect(factory, { timeouts: { modernProbeMs: 30 } });
    expect(client.era).toBe('legacy');
    expect(factory.opened).toBe(2);
  });

  it('falls back to initialize over HTTP after the probe deadline (a server under load)', async () => {
    const factory = new ScriptedFactory((server) => {
      legacyServer()(server);
      server.on('server/discover', { silent: true });
    }, 'shared');
    factory.kind = 'http';
    const diagnostics: string[] = [];
    const client = await connect(factory, {
      timeouts: { modernProbeMs: 30 },
      onDiagnostic: (line) => diagnostics.push(line),
    });
    expect(client.era).toBe('legacy');
    expect(factory.opened).toBe(1);
    // The abandoned probe is cancelled (over real HTTP that aborts its POST instead).
    expect(methods(factory.servers[0] as ScriptedServer)).toEqual([
      'server/discover',
      'notifications/cancelled',
      'initialize',
      'notifications/initialized',
    ]);
    expect(diagnostics.join('\n')).toMatch(/did not answer server\/discover within 30 ms/);
  });

  it('reports both attempts when the HTTP probe and the legacy handshake both time out', async () => {
    const factory = new ScriptedFactory((server) => {
      server.on('server/discover', { silent: true }).on('initialize', { silent: true });
    }, 'shared');
    factory.kind = 'http';
    const error = await McpClient.connect({
      name: 'srv',
      factory,
      timeouts: { modernProbeMs: 30, legacyHandshakeMs: 40 },
    }).catch((e: unknown) => e);
    expect(isMcpError(error) && error.code).toBe(McpErrorCode.MCP_HANDSHAKE_FAILED);
    expect((error as Error).message).toMatch(
      /failed both handshakes: modern probe: .*did not answer server\/discover within 30 ms; legacy initialize: .*did not answer initialize within 40 ms/,
    );
    // The server is named once, up front, not again inside each attempt's reason.
    expect((error as Error).message.split('MCP server "srv"')).toHaveLength(2);
    expect(factory.servers.every((server) => server.closed)).toBe(true);
  });

  it('quotes a server that fails both handshakes the same way once, and two ways both', async () => {
    // A process that exits at start: each attempt's stderr differs only in its timestamp.
    const exiting = (code: (attempt: number) => number): TransportFactory => {
      let attempt = 0;
      return {
        kind: 'stdio',
        probeIsolation: 'fresh',
        open(): Transport {
          attempt += 1;
          const n = attempt;
          const transport: Transport = {
            kind: 'stdio',
            start: async () => {},
            send: async () => {
              queueMicrotask(() =>
                transport.onclose?.(
                  new Error(
                    `MCP server "srv" exited with code ${code(n)} (stderr: [2026-12-05T07:0${n}:00Z] API_KEY is required)`,
                  ),
                ),
              );
            },
            close: async () => {},
            diagnostics: () => ({ tail: [] }),
          };
          return transport;
        },
      };
    };
    const same = (await McpClient.connect({ name: 'srv', factory: exiting(() => 1) }).catch(
      (e: unknown) => e,
    )) as Error;
    expect(same.message).toBe(
      'MCP server "srv" failed both handshakes: modern probe and legacy initialize both: closed the connection: exited with code 1 (stderr: [2026-12-05T07:02:00Z] API_KEY is required)',
    );
    // Another exit code is another failure: both are quoted.
    const two = (await McpClient.connect({ name: 'srv', factory: exiting((n) => n) }).catch(
      (e: unknown) => e,
    )) as Error;
    expect(two.message).toContain('modern probe: closed the connection: exited with code 1');
    expect(two.message).toContain('legacy initialize: closed the connection: exited with code 2');
  });

  for (const kind of ['stdio', 'http'] as const) {
    it(`falls back to initialize when server/discover lacks ${MODERN_PROTOCOL_VERSION} (${kind})`, async () => {
      const factory = new ScriptedFactory(
        (server) => {
          legacyServer()(server);
          server.on(
            'server/discover',
            complete({ supportedVersions: ['2099-01-01'], capabilities: {}, ttlMs: 0 }),
          );
        },
        kind === 'http' ? 'shared' : 'fresh',
      );
      factory.kind = kind;
      const diagnostics: string[] = [];
      const client = await connect(factory, { onDiagnostic: (line) => diagnostics.push(line) });
      expect(client.era).toBe('legacy');
      expect(factory.opened).toBe(kind === 'http' ? 1 : 2);
      expect(diagnostics.join('\n')).toContain(
        `server/discover lists supportedVersions 2099-01-01, not ${MODERN_PROTOCOL_VERSION}`,
      );
    });
  }

  it('still falls back on HTTP when the probe gets a plain JSON-RPC error', async () => {
    const factory = new ScriptedFactory(legacyServer(), 'shared');
    factory.kind = 'http';
    const client = await connect(factory);
    expect(client.era).toBe('legacy');
  });

  it('reuses the transport for the legacy handshake when isolation is shared', async () => {
    const factory = new ScriptedFactory(legacyServer(), 'shared');
    const client = await connect(factory);
    expect(client.era).toBe('legacy');
    expect(factory.opened).toBe(1);
    expect(methods(factory.servers[0] as ScriptedServer)).toEqual([
      'server/discover',
      'initialize',
      'notifications/initialized',
    ]);
  });

  it('accepts every legacy revision and rejects others', async () => {
    for (const version of ['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25']) {
      const client = await connect(new ScriptedFactory(legacyServer(version)));
      expect(client.protocolVersion).toBe(version);
    }
    const bad = await McpClient.connect({
      name: 'srv',
      factory: new ScriptedFactory(legacyServer('2099-01-01')),
    }).catch((e: unknown) => e);
    expect(isMcpError(bad) && bad.code).toBe(McpErrorCode.MCP_HANDSHAKE_FAILED);
    expect((bad as Error).message).toContain('2099-01-01');
    expect((bad as Error).message).toContain('server/discover failed with -32601');
  });

  it('keeps the probe transport as the modern session', async () => {
    const factory = new ScriptedFactory(modernServer());
    const client = await connect(factory);
    expect(client.era).toBe('modern');
    expect(client.protocolVersion).toBe(MODERN_PROTOCOL_VERSION);
    expect(client.serverInfo).toEqual({ name: 'modern-test', version: '0.0.1' });
    expect(factory.opened).toBe(1);
    expect(methods(factory.servers[0] as ScriptedServer)).toEqual(['server/discover']);
  });

  it('sends the modern _meta envelope on every request, with the host-services capability', async () => {
    const factory = new ScriptedFactory(modernServer({ tools: [{ name: 'echo' }] }));
    const host = fakeHost();
    const client = await connect(factory, { hostServices: host });
    await client.listTools();
    const server = factory.servers[0] as ScriptedServer;
    for (const request of [
      ...server.requests('server/discover'),
      ...server.requests('tools/list'),
    ]) {
      const meta = request.params?._meta as Record<string, unknown>;
      expect(meta['io.modelcontextprotocol/protocolVersion']).toBe('2026-07-28');
      expect(meta['io.modelcontextprotocol/clientInfo']).toMatchObject({ name: 'clat' });
      expect(meta['io.modelcontextprotocol/clientCapabilities']).toMatchObject({
        sampling: {},
        elicitation: { form: {} },
        experimental: { [HOST_SERVICES_EXTENSION]: { version: '0.1.0' } },
      });
    }
  });

  it('advertises the host-services capability in initialize when a host is given', async () => {
    const factory = new ScriptedFactory(legacyServer());
    await connect(factory, { hostServices: fakeHost() });
    const init = (factory.servers[1] as ScriptedServer).requests('initialize')[0];
    expect(init?.params?.capabilities).toMatchObject({
      experimental: {
        'io.artec.clat/hostServices': {
          version: '0.1.0',
          methods: expect.arrayContaining(['io.artec.clat/context/get']),
        },
      },
    });
  });

  it('retries discover once on -32022 naming 2026-07-28, and never falls back on modern errors', async () => {
    let probes = 0;
    const retry = new ScriptedFactory((server) => {
      modernServer()(server);
      server.on('server/discover', () => {
        probes++;
        if (probes === 1) {
          return {
            error: { code: -32022, message: 'unsupported', data: { supported: ['2026-07-28'] } },
          };
        }
        return complete({ supportedVersions: ['2026-07-28'], capabilities: {} });
      });
    });
    const client = await connect(retry);
    expect(client.era).toBe('modern');
    expect(probes).toBe(2);

    const refusing = new ScriptedFactory((server) => {
      legacyServer()(server);
      server.on('server/discover', {
        error: { code: -32022, message: 'unsupported', data: { supported: ['2027-01-01'] } },
      });
    });
    const error = await McpClient.connect({ name: 'srv', factory: refusing }).catch(
      (e: unknown) => e,
    );
    expect(isMcpError(error) && error.code).toBe(McpErrorCode.MCP_HANDSHAKE_FAILED);
    expect((error as Error).message).toContain('2027-01-01');
    expect(refusing.opened).toBe(1);
    expect((refusing.servers[0] as ScriptedServer).requests('initialize')).toHaveLength(0);
  });

  it('reads a discover result without resultType as complete', async () => {
    const factory = new ScriptedFactory((server) => {
      server.on('server/discover', {
        result: { supportedVersions: ['2026-07-28'], capabilities: {} },
      });
    });
    const client = await connect(factory);
    expect(client.era).toBe('modern');
  });

  it('rejects a discover result with an unknown resultType', async () => {
    const factory = new ScriptedFactory((server) => {
      server.on('server/discover', {
        result: { resultType: 'later', supportedVersions: ['2026-07-28'], capabilities: {} },
      });
    });
    const error = await McpClient.connect({ name: 'srv', factory }).catch((e: unknown) => e);
    expect(isMcpError(error) && error.code).toBe(McpErrorCode.MCP_PROTOCOL_VIOLATION);
    expect((factory.servers[0] as ScriptedServer).closed).toBe(true);
  });

  it('attaches the stderr tail to handshake failures', async () => {
    const factory = new ScriptedFactory((server) => {
      server.on('initialize', { error: { code: -32603, message: 'crashed' } });
      server.client.diagnostics = () => ({
        tail: ['boot', 'Authorization: Bearer sk-abcdefghijklmnop1234'],
      });
    });
    const error = await McpClient.connect({ name: 'srv', factory }).catch((e: unknown) => e);
    const message = (error as Error).message;
    expect(message).toContain('server stderr');
    expect(message).toContain('boot');
    expect(message).not.toContain('sk-abcdefghijklmnop1234');
  });

  it('stops connecting when the signal aborts', async () => {
    const controller = new AbortController();
    const factory = new ScriptedFactory((server) => server.on('server/discover', { silent: true }));
    const pending = McpClient.connect({ name: 'srv', factory, signal: controller.signal });
    await settle();
    controller.abort();
    const error = await pending.catch((e: unknown) => e);
    expect(isMcpError(error) && error.code).toBe(McpErrorCode.MCP_CANCELLED);
    expect(factory.opened).toBe(1);
    expect((factory.servers[0] as ScriptedServer).closed).toBe(true);
  });
});

describe('resultType on modern results', () => {
  it('reads a missing resultType as complete (debug log) and rejects an unknown one', async () => {
    let mode = 'missing';
    const diagnostics: string[] = [];
    const factory = new ScriptedFactory((server) => {
      modernServer()(server);
      server.on('tools/call', () => {
        if (mode === 'missing') return { result: { content: [{ type: 'text', text: 'ok' }] } };
        return { result: { resultType: 'partial', content: [] } };
      });
    });
    const client = await connect(factory, { onDiagnostic: (m) => diagnostics.push(m) });
    await expect(client.callTool('t')).resolves.toMatchObject({ content: [{ text: 'ok' }] });
    expect(diagnostics.join('\n')).toContain('without resultType; read as complete');
    mode = 'unknown';
    const unknown = await client.callTool('t').catch((e: unknown) => e);
    expect(isMcpError(unknown) && unknown.code).toBe(McpErrorCode.MCP_PROTOCOL_VIOLATION);
    expect((unknown as Error).message).toContain('partial');
  });

  it('accepts legacy results without resultType', async () => {
    const factory = new ScriptedFactory((server) => {
      legacyServer()(server);
      server.on('tools/call', { result: { content: [{ type: 'text', text: 'hi' }] } });
    });
    const client = await connect(factory);
    await expect(client.callTool('t')).resolves.toMatchObject({
      isError: false,
      content: [{ text: 'hi' }],
    });
  });
});

function pagedServer(
  pages: number,
  perPage: number,
  cursorOf: (page: number) => string | undefined,
) {
  return (server: ScriptedServer) => {
    legacyServer()(server);
    server.on('tools/list', (request) => {
      const cursor = request.params?.cursor;
      const page = cursor === undefined ? 0 : Number(String(cursor).split(':')[1]);
      const tools = Array.from({ length: perPage }, (_, i) => ({ name: `t${page}_${i}` }));
      const next = page + 1 < pages ? cursorOf(page + 1) : undefined;
      return { result: { tools, ...(next === undefined ? {} : { nextCursor: next }) } };
    });
  };
}

describe('tools/list paging', () => {
  it('follows cursors across pages and normalizes tools', async () => {
    const factory = new ScriptedFactory(pagedServer(3, 2, (p) => `c:${p}`));
    const client = await connect(factory);
    const tools = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(['t0_0', 't0_1', 't1_0', 't1_1', 't2_0', 't2_1']);
    expect(tools[0]?.inputSchema).toEqual({ type: 'object' });
  });

  it('aborts on a repeated cursor', async () => {
    const factory = new ScriptedFactory((server) => {
      legacyServer()(server);
      server.on('tools/list', { result: { tools: [{ name: 'a' }], nextCursor: 'same' } });
    });
    const client = await connect(factory);
    const error = await client.listTools().catch((e: unknown) => e);
    expect(isMcpError(error) && error.code).toBe(McpErrorCode.MCP_LIST_LIMIT);
    expect((error as Error).message).toContain('repeated cursor');
  });

  it('stops after the page limit', async () => {
    const ok = await connect(
      new ScriptedFactory(pagedServer(MCP_LIMITS.listPages, 1, (p) => `c:${p}`)),
    );
    expect(await ok.listTools()).toHaveLength(MCP_LIMITS.listPages);
    const factory = new ScriptedFactory(pagedServer(MCP_LIMITS.listPages + 1, 1, (p) => `c:${p}`));
    const client = await connect(factory);
    const error = await client.listTools().catch((e: unknown) => e);
    expect(isMcpError(error) && error.code).toBe(McpErrorCode.MCP_LIST_LIMIT);
    expect((error as Error).message).toContain(`${MCP_LIMITS.listPages} pages`);
    expect((factory.servers[1] as ScriptedServer).requests('tools/list')).toHaveLength(
      MCP_LIMITS.listPages,
    );
  });

  it('lists past the per-server cap (the mount applies it after filters) up to listedTools', async () => {
    const ok = await connect(
      new ScriptedFactory(pagedServer(2, MCP_LIMITS.listedTools / 2, (p) => `c:${p}`)),
    );
    expect(await ok.listTools()).toHaveLength(MCP_LIMITS.listedTools);
    expect(MCP_LIMITS.listedTools).toBeGreaterThan(LIMITS.toolsPerServer);
    const over = new ScriptedFactory((server) => {
      legacyServer()(server);
      server.on('tools/list', (request) => {
        const first = request.params?.cursor === undefined;
        const count = first ? MCP_LIMITS.listedTools : 1;
        const tools = Array.from({ length: count }, (_, i) => ({
          name: `${first ? 'a' : 'b'}${i}`,
        }));
        return { result: { tools, ...(first ? { nextCursor: 'next' } : {}) } };
      });
    });
    const client = await connect(over);
    const error = await client.listTools().catch((e: unknown) => e);
    expect(isMcpError(error) && error.code).toBe(McpErrorCode.MCP_LIST_LIMIT);
    expect((error as Error).message).toBe(
      `MCP server "srv" lists more than ${MCP_LIMITS.listedTools} tools (limit ${MCP_LIMITS.listedTools})`,
    );
  });

  it('applies the per-page deadline', async () => {
    const factory = new ScriptedFactory((server) => {
      legacyServer()(server);
      server.on('tools/list', { silent: true });
    });
    const client = await connect(factory, { timeouts: { listPageMs: 20 } });
    const error = await client.listTools().catch((e: unknown) => e);
    expect(isMcpError(error) && error.code).toBe(McpErrorCode.MCP_TIMEOUT);
  });
});

describe('tools/call', () => {
  function textOf(bytes: number): string {
    return 'x'.repeat(bytes);
  }

  it('measures a result over 1 MiB and leaves the verdict to the pipeline', async () => {
    let size = 0;
    const factory = new ScriptedFactory((server) => {
      legacyServer()(server);
      server.on('tools/call', () => ({
        result: { content: [{ type: 'text', text: textOf(size) }] },
      }));
    });
    const client = await connect(factory);
    // Blocks count their payload bytes, once each.
    size = LIMITS.toolResultBytes;
    const fits = await client.callTool('big');
    expect(fits.bytes).toBe(LIMITS.toolResultBytes);
    size += 1;
    const over = await client.callTool('big');
    expect(over.bytes).toBe(LIMITS.toolResultBytes + 1);
  });

  const mismatch = { error: { code: -32020, message: 'Mcp-Param-Region header missing' } };

  it('re-lists tools and retries once when a modern server answers -32020', async () => {
    let refusals = 1;
    const factory = new ScriptedFactory((server) => {
      modernServer({ tools: [{ name: 'echo' }] })(server);
      server.on('tools/call', () =>
        refusals-- > 0 ? mismatch : complete({ content: [{ type: 'text', text: 'ok' }] }),
      );
    });
    const client = await connect(factory);
    const result = await client.callTool('echo', { text: 'hi' });
    expect(result.content).toEqual([{ type: 'text', text: 'ok' }]);
    const live = factory.servers[0] as ScriptedServer;
    expect(methods(live)).toEqual(['server/discover', 'tools/call', 'tools/list', 'tools/call']);
  });

  it('retries a -32020 only once, and not at all on legacy connections', async () => {
    const modern = new ScriptedFactory((server) => {
      modernServer({ tools: [{ name: 'echo' }] })(server);
      server.on('tools/call', mismatch);
    });
    const error = await (await connect(modern)).callTool('echo').catch((e: unknown) => e);
    expect(isMcpError(error) && error.rpcCode).toBe(-32020);
    expect((modern.servers[0] as ScriptedServer).requests('tools/call')).toHaveLength(2);

    const gone = new ScriptedFactory((server) => {
      modernServer({ tools: [] })(server);
      server.on('tools/call', mismatch);
    });
    const vanished = await (await connect(gone)).callTool('echo').catch((e: unknown) => e);
    expect((vanished as Error).message).toContain('no longer lists tool "echo"');
    expect((gone.servers[0] as ScriptedServer).requests('tools/call')).toHaveLength(1);

    const legacy = new ScriptedFactory((server) => {
      legacyServer()(server);
      server.on('tools/call', mismatch);
    });
    await expect((await connect(legacy)).callTool('echo')).rejects.toMatchObject({
      rpcCode: -32020,
    });
    expect((legacy.servers[1] as ScriptedServer).requests('tools/list')).toHaveLength(0);
    expect((legacy.servers[1] as ScriptedServer).requests('tools/call')).toHaveLength(1);
  });

  it('sends notifications/cancelled with the original id when the caller cancels', async () => {
    const factory = new ScriptedFactory((server) => {
      modernServer()(server);
      server.on('tools/call', { silent: true });
    });
    const client = await connect(factory);
    const controller = new AbortController();
    const pending = client.callTool('slow', { a: 1 }, { signal: controller.signal });
    await settle();
    const server = factory.servers[0] as ScriptedServer;
    const call = server.requests('tools/call')[0];
    expect(call?.params).toMatchObject({ name: 'slow', arguments: { a: 1 } });
    controller.abort();
    await expect(pending).rejects.toMatchObject({ code: McpErrorCode.MCP_CANCELLED });
    const note = await server.waitFor(
      (m) => 'method' in m && m.method === 'notifications/cancelled',
    );
    expect((note as unknown as { params: { requestId: unknown } }).params.requestId).toBe(call?.id);
  });

  it('times out after the tools/call deadline', async () => {
    vi.useFakeTimers();
    const factory = new ScriptedFactory((server) => {
      legacyServer()(server);
      server.on('tools/call', { silent: true });
    });
    const connecting = McpClient.connect({ name: 'srv', factory });
    await vi.advanceTimersByTimeAsync(0);
    const client = await connecting;
    clients.push(client);
    let settled = false;
    const outcome = client.callTool('slow').catch((e: unknown) => e);
    void outcome.then(() => {
      settled = true;
    });
    await vi.advanceTimersByTimeAsync(LIMITS.toolCallMs - 1);
    // Still waiting one millisecond before the deadline: a shorter default would have ended it.
    expect(settled).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(await outcome).toMatchObject({ code: McpErrorCode.MCP_TIMEOUT });
  });
});

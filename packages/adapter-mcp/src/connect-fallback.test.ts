/**
 * The transport factory's two era hooks, seen through McpClient.connect: `legacyOnly` skips the
 * modern probe, and `fallback` carries a refused legacy `initialize` to an older transport
 * (Streamable HTTP → HTTP+SSE) once per connect.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { McpClient } from './client.js';
import { isMcpError, McpErrorCode } from './errors.js';
import {
  legacyServer,
  ScriptedFactory,
  type ScriptedServer,
} from './test-support/scripted-server.js';
import type { JsonRpcMessage, Transport, TransportFactory } from './transport.js';

const clients: McpClient[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close()));
});

/** A status error as an HTTP transport reports it (the connect code reads only `status`). */
function statusError(status: number): Error {
  return Object.assign(new Error(`answered initialize with HTTP ${status}`), { status });
}

/**
 * A Streamable-HTTP-like factory whose server answers the probe as legacy and refuses the
 * `initialize` POST with `status`; its fallback opens `older` for 400/404/405.
 */
class RefusingFactory implements TransportFactory {
  readonly kind = 'http';
  readonly probeIsolation = 'shared';
  readonly servers: ScriptedServer[] = [];
  readonly #inner = new ScriptedFactory(() => {}, 'shared');
  readonly status: number;
  readonly older: TransportFactory | undefined;
  fallbacks = 0;

  constructor(status: number, older: TransportFactory | undefined) {
    this.status = status;
    this.older = older;
  }

  open(): Transport {
    const transport = this.#inner.open();
    this.servers.push(this.#inner.servers.at(-1) as ScriptedServer);
    const send = transport.send.bind(transport);
    transport.send = (message: JsonRpcMessage) =>
      'method' in message && message.method === 'initialize'
        ? Promise.reject(statusError(this.status))
        : send(message);
    return transport;
  }

  fallback(error: unknown): TransportFactory | undefined {
    const status = (error as { cause?: { status?: number } }).cause?.status;
    if (status === undefined || ![400, 404, 405].includes(status)) return undefined;
    this.fallbacks++;
    return this.older;
  }
}

function sseFactory(setup = legacyServer('2024-11-05')): ScriptedFactory & { legacyOnly: true } {
  const factory = new ScriptedFactory(setup) as ScriptedFactory & { legacyOnly: true };
  factory.kind = 'sse';
  factory.legacyOnly = true;
  return factory;
}

function methods(server: ScriptedServer): string[] {
  return server.received.flatMap((message) => ('method' in message ? [message.method] : []));
}

describe('a legacy-only factory', () => {
  it('starts with initialize and never sends the modern probe', async () => {
    const factory = sseFactory();
    const client = await McpClient.connect({ name: 'old', factory });
    clients.push(client);
    expect(client.era).toBe('legacy');
    expect(client.transportKind).toBe('sse');
    expect(factory.opened).toBe(1);
    expect(methods(factory.servers[0] as ScriptedServer)).toEqual([
      'initialize',
      'notifications/initialized',
    ]);
  });

  it('names the transport when initialize fails', async () => {
    const factory = sseFactory((server) => {
      server.on('initialize', { error: { code: -32603, message: 'boom' } });
    });
    const error = await McpClient.connect({ name: 'old', factory }).catch((e: unknown) => e);
    expect(isMcpError(error) && error.code).toBe(McpErrorCode.MCP_HANDSHAKE_FAILED);
    expect((error as Error).message).toContain('MCP server "old" failed initialize over sse');
    expect((error as Error).message).toContain('boom');
  });
});

describe('the fallback of a refused legacy initialize', () => {
  it('connects over the older transport after a 404, and the client says which one', async () => {
    const older = sseFactory();
    const factory = new RefusingFactory(404, older);
    const diagnostics: string[] = [];
    const client = await McpClient.connect({
      name: 'web',
      factory,
      onDiagnostic: (line) => diagnostics.push(line),
    });
    clients.push(client);
    expect(client.transportKind).toBe('sse');
    expect(client.protocolVersion).toBe('2024-11-05');
    expect(factory.fallbacks).toBe(1);
    expect(methods(older.servers[0] as ScriptedServer)).toEqual([
      'initialize',
      'notifications/initialized',
    ]);
    expect(diagnostics.some((line) => line.includes('trying the sse transport'))).toBe(true);
    // The tools come over the older transport.
    (older.servers[0] as ScriptedServer).on('tools/list', { result: { tools: [] } });
    expect(await client.listTools()).toEqual([]);
  });

  it('is not taken for a status that says nothing about the transport (401, 500)', async () => {
    for (const status of [401, 500]) {
      const older = sseFactory();
      const factory = new RefusingFactory(status, older);
      const error = await McpClient.connect({ name: 'web', factory }).catch((e: unknown) => e);
      expect((error as Error).message).toContain('failed both handshakes');
      expect(older.opened).toBe(0);
    }
  });

  it('reports all three attempts when the older transport fails too', async () => {
    const older = sseFactory((server) => {
      server.on('initialize', { error: { code: -32603, message: 'no session for you' } });
    });
    const factory = new RefusingFactory(405, older);
    const error = await McpClient.connect({ name: 'web', factory }).catch((e: unknown) => e);
    expect(isMcpError(error) && error.code).toBe(McpErrorCode.MCP_HANDSHAKE_FAILED);
    const message = (error as Error).message;
    expect(message).toContain('MCP server "web" failed every handshake: modern probe:');
    expect(message).toContain('legacy initialize:');
    expect(message).toContain('HTTP 405');
    expect(message).toContain('sse transport:');
    expect(message).toContain('no session for you');
    expect((older.servers[0] as ScriptedServer).closed).toBe(true);
  });

  it('goes to the older transport without a probe when the era was remembered, once per connect', async () => {
    const older = sseFactory();
    const factory = new RefusingFactory(404, older);
    const client = await McpClient.connect({ name: 'web', factory, eraHint: 'legacy' });
    clients.push(client);
    expect(client.transportKind).toBe('sse');
    // One transport for the refused initialize; no server/discover was sent on it.
    expect(factory.servers).toHaveLength(1);
    expect(methods(factory.servers[0] as ScriptedServer)).not.toContain('server/discover');
    expect(factory.fallbacks).toBe(1);
  });

  it('with a remembered era that fails on both transports, probes and does not try the older one again', async () => {
    const older = sseFactory((server) => {
      server.on('initialize', { error: { code: -32603, message: 'down' } });
    });
    const factory = new RefusingFactory(404, older);
    const error = await McpClient.connect({ name: 'web', factory, eraHint: 'legacy' }).catch(
      (e: unknown) => e,
    );
    expect((error as Error).message).toContain('failed every handshake');
    expect((error as Error).message).toContain('sse transport:');
    expect(factory.fallbacks).toBe(1);
    expect(older.opened).toBe(1);
    // The remembered initialize, then the probe and the legacy initialize on the shared transport.
    expect(factory.servers).toHaveLength(2);
  });
});

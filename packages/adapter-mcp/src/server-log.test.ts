import { LIMITS } from '@clat/kernel';
import { afterEach, describe, expect, it } from 'vitest';
import { McpClient } from './client.js';
import { DEFAULT_LOG_LEVEL, ServerLog } from './server-log.js';
import {
  complete,
  legacyServer,
  modernServer,
  ScriptedFactory,
  type ScriptedServer,
  settle,
} from './test-support/scripted-server.js';

describe('ServerLog', () => {
  it('keeps the newest messages, each compact, redacted and cut', () => {
    const log = new ServerLog();
    log.add({ level: 'error', logger: 'db', data: { code: 7, detail: ['a', 'b'] } });
    log.add({ level: 'warning', data: 'token Bearer abcdefghijklmnopqrstuvwxyz0123456789' });
    log.add({ level: 'shout', data: 'x'.repeat(LIMITS.logEntryChars * 20) });
    const [object, secret, long] = log.entries();
    expect(object).toEqual({ level: 'error', logger: 'db', text: '{"code":7,"detail":["a","b"]}' });
    expect(secret?.text).not.toContain('abcdefghijklmnopqrstuvwxyz');
    expect(long?.level).toBe('unknown');
    expect(long?.text).toHaveLength(LIMITS.logEntryChars + 1);
  });

  it('stays bounded under a flood', () => {
    const log = new ServerLog();
    for (let i = 0; i < 10_000; i++) log.add({ level: 'info', data: `message ${i}` });
    const entries = log.entries();
    expect(entries).toHaveLength(LIMITS.logTailEntries);
    expect(entries.at(-1)?.text).toBe('message 9999');
  });
});

const clients: McpClient[] = [];

afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close()));
});

async function connect(factory: ScriptedFactory, diagnostics: string[] = []) {
  const client = await McpClient.connect({
    name: 'srv',
    factory,
    onDiagnostic: (line) => diagnostics.push(line),
  });
  clients.push(client);
  return client;
}

const live = (factory: ScriptedFactory) => factory.servers.at(-1) as ScriptedServer;

describe('McpClient server logs', () => {
  it('sets the level of a legacy server that logs, and keeps what it sends', async () => {
    const factory = new ScriptedFactory((server) => {
      legacyServer('2025-11-25', { capabilities: { tools: {}, logging: {} } })(server);
      server.on('logging/setLevel', { result: {} });
    });
    const client = await connect(factory);
    const server = live(factory);
    await server.waitFor((m) => 'method' in m && m.method === 'logging/setLevel');
    expect(server.requests('logging/setLevel')[0]?.params).toEqual({ level: DEFAULT_LOG_LEVEL });
    await server.notify('notifications/message', { level: 'error', logger: 'db', data: 'down' });
    await settle();
    expect(client.logTail()).toEqual([{ level: 'error', logger: 'db', text: 'down' }]);
  });

  it('keeps the connection of a server that refuses the level, and asks none that does not log', async () => {
    const diagnostics: string[] = [];
    const refusing = new ScriptedFactory(
      legacyServer('2025-11-25', { capabilities: { tools: {}, logging: {} } }),
    );
    const client = await connect(refusing, diagnostics);
    await live(refusing).waitFor((m) => 'method' in m && m.method === 'logging/setLevel');
    await settle();
    expect(client.closed).toBe(false);
    expect(await client.listTools()).toEqual([]);
    expect(diagnostics.join('\n')).toContain('refused logging/setLevel warning');

    const quiet = new ScriptedFactory(legacyServer());
    await connect(quiet);
    await settle();
    expect(live(quiet).requests('logging/setLevel')).toEqual([]);
  });

  it('asks a modern server that logs for the level in each request _meta instead', async () => {
    const factory = new ScriptedFactory((server) => {
      modernServer({ capabilities: { tools: {}, logging: {} } })(server);
      server.on('tools/call', (_request, peer) => {
        void peer.notify('notifications/message', { level: 'warning', data: { slow: true } });
        return complete({ content: [] });
      });
    });
    const client = await connect(factory);
    await client.callTool('t', {});
    const server = live(factory);
    expect(server.requests('logging/setLevel')).toEqual([]);
    const meta = server.requests('tools/call')[0]?.params?._meta as Record<string, unknown>;
    expect(meta['io.modelcontextprotocol/logLevel']).toBe(DEFAULT_LOG_LEVEL);
    expect(client.logTail()).toEqual([{ level: 'warning', text: '{"slow":true}' }]);

    const quiet = new ScriptedFactory(modernServer());
    const other = await connect(quiet);
    await other.listTools();
    const quietMeta = live(quiet).requests('tools/list')[0]?.params?._meta as Record<
      string,
      unknown
    >;
    expect(quietMeta).not.toHaveProperty('io.modelcontextprotocol/logLevel');
  });
});

/**
 * Each host policy has one owner, and the MCP connector is not it: these fail if the adapter
 * starts judging result size, wording the freeze, or relying on its own redaction again.
 */
import { createHost, type Host, KernelErrorCode, LIMITS } from '@clat/kernel';
import { afterEach, describe, expect, it } from 'vitest';
import type { McpServerConfig } from './config.js';
import { createMcpConnector, type McpTransportProvider, mcpEntry } from './mcp-connector.js';
import {
  legacyServer,
  ScriptedFactory,
  type ScriptedServer,
} from './test-support/scripted-server.js';

const hosts: Host[] = [];
/** The scripted connections of each server, by server name. */
const factories = new Map<string, ScriptedFactory>();

afterEach(async () => {
  await Promise.all(hosts.splice(0).map((host) => host.close()));
  factories.clear();
});

const SECRET = 'configured-header-value-1234';

/** A provider whose connections are scripted by `script`, with one configured secret. */
function provider(script: (server: ScriptedServer, name: string) => void): McpTransportProvider {
  return {
    transport: 'stdio',
    describe: () => ({ target: 'scripted', secrets: [SECRET] }),
    factory: (server) => {
      const factory = new ScriptedFactory((peer) => script(peer, server.name));
      factories.set(server.name, factory);
      return factory;
    },
  };
}

function hostWith(script: (server: ScriptedServer, name: string) => void, names: string[]): Host {
  const entries = names.map((name) =>
    mcpEntry({
      transport: 'stdio',
      name,
      origin: 'user',
      command: 'unused',
      args: [],
    } satisfies McpServerConfig),
  );
  const host = createHost({
    projectRoot: '/project',
    connectors: [createMcpConnector({ transports: [provider(script)] })],
    entries,
  });
  hosts.push(host);
  return host;
}

describe('policy owners around the MCP connector', () => {
  it('result size: the pipeline refuses an oversized result, naming tool and server', async () => {
    const host = hostWith(
      (server) => {
        legacyServer('2025-11-25', { tools: [{ name: 'big' }] })(server);
        server.on('tools/call', () => ({
          result: { content: [{ type: 'text', text: 'x'.repeat(LIMITS.toolResultBytes + 1) }] },
        }));
      },
      ['bulk'],
    );
    await using run = await host.beginRun({ mode: 'full-access', initialWaitMs: 5_000 });
    const error = await host.pipeline.call('mcp_bulk_big', {}, run.context).catch((e) => e);
    expect(error).toMatchObject({
      code: KernelErrorCode.LIMIT_EXCEEDED,
      message: `tool mcp_bulk_big of mcp plugin "bulk" returned ${LIMITS.toolResultBytes + 1} bytes, over the tool result limit of ${LIMITS.toolResultBytes} bytes`,
    });
  });

  it('frozen registry: a server that lists after the freeze is reported by the host, its tools revoked', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const host = hostWith(
      (server, name) => {
        legacyServer('2025-11-25', { tools: [{ name: 'a' }, { name: 'b' }] })(server);
        if (name === 'late') {
          server.on('tools/list', async () => {
            await gate;
            return { result: { tools: [{ name: 'a' }, { name: 'b' }] } };
          });
        }
      },
      ['early', 'late'],
    );
    host.start();
    await host.mount.freezeForFirstRun(200);
    release();
    await host.mount.start();
    const late = host.mount.summary().servers.find((server) => server.name === 'late');
    expect(late).toMatchObject({
      state: 'failed',
      failure:
        'mcp plugin "late" finished mounting after the tool and prompt registries froze for the first run, so its registrations were revoked; restart CLAT after fixing or warming it',
    });
    expect(
      host.registry
        .list()
        .map((tool) => tool.name)
        .sort(),
    ).toEqual(['mcp_early_a', 'mcp_early_b']);
    // Its connection went with its scope.
    expect(factories.get('late')?.servers.every((server) => server.closed)).toBe(true);
  });

  it('redaction: the host redacts what the adapter reports raw (failure, stderr tail, warnings)', async () => {
    const host = hostWith(
      (server) => {
        server.on('initialize', {
          error: {
            code: -32603,
            message: `bad header ${SECRET} and api_key=sk-verysecretvalue123`,
          },
        });
        server.client.diagnostics = () => ({ tail: [`echo ${SECRET}`, 'token=abcdefghijkl0123'] });
      },
      ['leaky'],
    );
    await host.mount.start();
    const summary = host.mount.summary();
    const leaky = summary.servers[0];
    expect(leaky?.state).toBe('failed');
    expect(leaky?.failure).toContain('[REDACTED]');
    expect(leaky?.stderrTail.join('\n')).toContain('[REDACTED]');
    const shown = JSON.stringify(summary);
    for (const secret of [SECRET, 'sk-verysecretvalue123', 'abcdefghijkl0123']) {
      expect(shown).not.toContain(secret);
    }
  });
});

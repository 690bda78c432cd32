import { createHost, type Host, LIMITS } from '@clat/kernel';
import { afterEach, describe, expect, it } from 'vitest';
import type { McpServerConfig } from './config.js';
import { createMcpConnector, type McpTransportProvider, mcpEntry } from './mcp-connector.js';
import { legacyServer, ScriptedFactory } from './test-support/scripted-server.js';

const hosts: Host[] = [];

afterEach(async () => {
  await Promise.all(hosts.splice(0).map((host) => host.close()));
});

/** A transport provider whose connections are scripted servers with `capabilities`. */
function scripted(capabilities: Record<string, Record<string, unknown>>): McpTransportProvider {
  return {
    transport: 'stdio',
    describe: () => ({ target: 'scripted', secrets: [] }),
    factory: (server) =>
      new ScriptedFactory((peer) => {
        legacyServer('2025-11-25', { capabilities: capabilities[server.name] ?? { tools: {} } })(
          peer,
        );
        peer.on('prompts/list', { result: { prompts: [{ name: `${server.name}-prompt` }] } });
      }),
  };
}

const entry = (name: string): McpServerConfig => ({
  transport: 'stdio',
  name,
  origin: 'user',
  command: 'unused',
  args: [],
});

describe('createMcpConnector catalogs', () => {
  it('offers the catalog of servers that declare prompts or resources, and no other', async () => {
    const host = createHost({
      projectRoot: '/project',
      connectors: [
        createMcpConnector({
          transports: [
            scripted({
              talk: { tools: {}, prompts: {} },
              files: { resources: {} },
              bare: { tools: {} },
            }),
          ],
        }),
      ],
      entries: ['talk', 'files', 'bare'].map((name) => mcpEntry(entry(name))),
    });
    hosts.push(host);
    await host.mount.start();
    expect(host.mount.summary().connected).toBe(3);
    expect(host.mount.catalogNames()).toEqual(['talk', 'files']);
    const talk = host.mount.catalog('talk');
    expect([talk?.prompts, talk?.resources]).toEqual([true, false]);
    expect(await talk?.listPrompts()).toEqual([{ name: 'talk-prompt', arguments: [] }]);
    const files = host.mount.catalog('files');
    expect([files?.prompts, files?.resources]).toEqual([false, true]);
    expect(host.mount.catalog('bare')).toBeUndefined();
    // Listing prompts for a person registers nothing: no system prompt contribution.
    expect(host.prompts.assemble()).toBe('');
  });
});

describe('createMcpConnector over the tool cap', () => {
  it('suggests includeTools/excludeTools only for an entry of an mcp.json the person edits', async () => {
    const many: McpTransportProvider = {
      transport: 'stdio',
      describe: () => ({ target: 'scripted', secrets: [] }),
      factory: () =>
        new ScriptedFactory(
          legacyServer('2025-11-25', {
            tools: Array.from({ length: LIMITS.toolsPerServer + 1 }, (_, i) => ({ name: `t${i}` })),
          }),
        ),
    };
    const origins = ['user', 'project', 'package', 'glm-pack'];
    const host = createHost({
      projectRoot: '/project',
      connectors: [createMcpConnector({ transports: [many] })],
      entries: origins.map((origin) => mcpEntry({ ...entry(origin), origin })),
    });
    hosts.push(host);
    await host.mount.start();
    const failures = host.mount.summary().servers.map((server) => [server.name, server.failure]);
    const over = `lists ${LIMITS.toolsPerServer + 1} tools, over the limit of ${LIMITS.toolsPerServer} per server`;
    const hint = '; narrow them with "includeTools" or "excludeTools" in its mcp.json entry';
    expect(failures).toEqual([
      ['user', `MCP server "user" ${over}${hint}`],
      ['project', `MCP server "project" ${over}${hint}`],
      ['package', `MCP server "package" ${over}`],
      ['glm-pack', `MCP server "glm-pack" ${over}`],
    ]);
  });
});

import {
  createGlobalScope,
  type McpServerConfig,
  PromptRegistry,
  Redactor,
  ToolRegistry,
} from '@clat/kernel';
import { describe, expect, it } from 'vitest';
import { formatMcpStatus } from '../ui/mcp-status.js';
import { ProjectMount } from './project-mount.js';
import { type ServerConnector, ServerMountError } from './server-connector.js';

const hostServices = {} as never;

function server(name: string, transport: 'stdio' | 'http' = 'stdio'): McpServerConfig {
  return transport === 'http'
    ? {
        transport,
        name,
        origin: 'user',
        url: 'https://example.com/mcp',
        headers: { Authorization: 'Bearer abcdefgh12345678' },
      }
    : { transport, name, origin: 'user', command: 'node', args: ['x.js'] };
}

function mountWith(connectors: ServerConnector[], servers: McpServerConfig[]) {
  const scope = createGlobalScope().child('/project');
  const redactor = new Redactor();
  redactor.add('abcdefgh12345678');
  const mount = new ProjectMount({
    servers,
    connectors,
    registry: new ToolRegistry(),
    prompts: new PromptRegistry(),
    scope,
    hostServices,
    projectRoot: '/project',
    clatHome: '/home/.clat',
    redactor,
  });
  return { mount, scope };
}

describe('ProjectMount', () => {
  it('isolates failures per server and redacts what it reports', async () => {
    const connector: ServerConnector = {
      transports: ['stdio'],
      async mount(request) {
        if (request.server.name === 'bad') {
          throw new ServerMountError('spawn failed: token=abcdefgh12345678', [
            'line with Bearer abcdefgh12345678',
          ]);
        }
        request.onProgress({ protocolVersion: '2025-06-18', era: 'legacy', tools: 3 });
        return { progress: { tools: 3 }, close: async () => {} };
      },
    };
    const { mount, scope } = mountWith(
      [connector],
      [server('good'), server('bad'), server('remote', 'http')],
    );
    await mount.start();
    const summary = mount.summary();
    expect(summary).toMatchObject({ configured: 3, connecting: 0, connected: 1, failed: 2 });
    const [good, bad, remote] = summary.servers;
    expect(good).toMatchObject({ state: 'connected', tools: 3, protocolVersion: '2025-06-18' });
    expect(bad?.failure).toBe('spawn failed: token=[REDACTED]');
    expect(bad?.stderrTail).toEqual(['line with Bearer [REDACTED]']);
    expect(remote?.failure).toContain('no connector for the http transport');
    const text = formatMcpStatus(summary);
    expect(text).not.toContain('abcdefgh12345678');
    expect(text).toContain('stderr (last 1 lines):');
    await scope.close();
  });

  it('closes connected servers when the project scope closes', async () => {
    const closed: string[] = [];
    const connector: ServerConnector = {
      transports: ['stdio'],
      async mount(request) {
        return {
          progress: {},
          close: async () => {
            closed.push(request.server.name);
          },
        };
      },
    };
    const { mount, scope } = mountWith([connector], [server('a'), server('b')]);
    await mount.start();
    await scope.close();
    expect(closed.sort()).toEqual(['a', 'b']);
  });
});

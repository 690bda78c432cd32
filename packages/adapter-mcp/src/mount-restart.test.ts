import {
  createGlobalScope,
  PromptRegistry,
  RunEventStream,
  type Scope,
  ToolPipeline,
  ToolRegistry,
} from '@clat/kernel';
import { afterEach, describe, expect, it } from 'vitest';
import { MCP_LIMITS } from './limits.js';
import { type McpServerStatus, mountMcpServer } from './mount.js';
import {
  complete,
  legacyServer,
  modernServer,
  ScriptedFactory,
  type ScriptedServer,
} from './test-support/scripted-server.js';

const scopes: Scope[] = [];

afterEach(async () => {
  await Promise.all(scopes.splice(0).map((scope) => scope.close().catch(() => {})));
});

/** A modern server with one tool `echo` that answers which server (by open order) it is. */
function echoServer(server: ScriptedServer, index: number): void {
  modernServer({ tools: [{ name: 'echo', annotations: { readOnlyHint: true } }] })(server);
  server.on('tools/call', () => complete({ content: [{ type: 'text', text: `server ${index}` }] }));
}

async function mounted(setup: (server: ScriptedServer, index: number) => void) {
  const registry = new ToolRegistry();
  const scope = createGlobalScope('test').child('project');
  scopes.push(scope);
  const factory = new ScriptedFactory(setup);
  const statuses: McpServerStatus[] = [];
  const handle = await mountMcpServer({
    name: 'srv',
    factory,
    registry,
    prompts: new PromptRegistry(),
    scope: scope.pluginScope('srv'),
    projectRoot: '/work/project',
    onStatus: (status) => statuses.push(status),
  });
  const pipeline = new ToolPipeline({ registry, events: new RunEventStream() });
  const call = (tool = 'mcp_srv_echo') =>
    pipeline.call(
      tool,
      {},
      { runId: 'r', mode: 'project-write', signal: new AbortController().signal },
    );
  const crash = () => (factory.servers.at(-1) as ScriptedServer).transport.close();
  return { handle, factory, statuses, call, crash, scope, registry };
}

describe('a server whose connection closed after it mounted', () => {
  it('is restarted on the next call of one of its tools, and says so', async () => {
    const { handle, factory, call, crash } = await mounted(echoServer);
    expect((await call()).content).toBe('server 0');
    await crash();
    expect(handle.status()).toMatchObject({
      state: 'failed',
      failure:
        'MCP server "srv" closed the connection; the next call of one of its tools starts it again',
    });
    // Not at once: a server nobody calls is not started again.
    expect(factory.opened).toBe(1);

    expect((await call()).content).toBe('server 1');
    expect(factory.opened).toBe(2);
    const status = handle.status();
    expect(status.state).toBe('connected');
    expect(status.failure).toBeUndefined();
    expect(status.warnings).toEqual([
      `MCP server "srv" closed the connection; CLAT restarted it for the next call (restart 1 of ${MCP_LIMITS.serverRestarts} this session)`,
    ]);
    expect((await call()).content).toBe('server 1');
    expect(factory.opened).toBe(2);
  });

  it('does not retry the call that was in flight when it closed', async () => {
    const { factory, call, crash } = await mounted((server, index) => {
      echoServer(server, index);
      // The first server never answers its call: it dies with the call in flight.
      if (index === 0) server.on('tools/call', { silent: true });
    });
    const pending = call();
    await new Promise((resolve) => setTimeout(resolve, 5));
    await crash();
    await expect(pending).rejects.toThrow('closed the connection');
    expect(factory.opened).toBe(1);
    expect(factory.servers[0]?.requests('tools/call')).toHaveLength(1);
    expect((await call()).content).toBe('server 1');
    expect(factory.servers[1]?.requests('tools/call')).toHaveLength(1);
  });

  it('shares one restart among the calls that find it closed', async () => {
    const { factory, call, crash } = await mounted(echoServer);
    await crash();
    const results = await Promise.all([call(), call(), call()]);
    expect(results.map((result) => result.content)).toEqual(['server 1', 'server 1', 'server 1']);
    expect(factory.opened).toBe(2);
  });

  it(`stops after ${MCP_LIMITS.serverRestarts} restarts, naming them`, async () => {
    const { handle, factory, call, crash } = await mounted(echoServer);
    for (let restart = 1; restart <= MCP_LIMITS.serverRestarts; restart++) {
      await crash();
      expect((await call()).content).toBe(`server ${restart}`);
    }
    await crash();
    await expect(call()).rejects.toThrow(
      `MCP server "srv" closed the connection; CLAT restarted MCP server "srv" ${MCP_LIMITS.serverRestarts} times already and does not start it again until CLAT restarts`,
    );
    expect(factory.opened).toBe(MCP_LIMITS.serverRestarts + 1);
    // No restart is left: the status no longer promises one, and says why.
    expect(handle.status()).toMatchObject({
      state: 'failed',
      failure: `MCP server "srv" closed the connection; CLAT restarted MCP server "srv" ${MCP_LIMITS.serverRestarts} times already and does not start it again until CLAT restarts`,
    });
  });

  it('says why a restart failed, and tries again on the next call', async () => {
    let broken = false;
    const { handle, factory, call, crash } = await mounted((server, index) => {
      if (broken) {
        server.on('server/discover', { error: { code: -32603, message: 'database is locked' } });
        server.on('initialize', { error: { code: -32603, message: 'database is locked' } });
        return;
      }
      echoServer(server, index);
    });
    await crash();
    broken = true;
    await expect(call()).rejects.toThrow(
      /^MCP server "srv" closed the connection; restarting it failed: MCP server "srv" failed both handshakes: .*database is locked/,
    );
    expect(handle.status().state).toBe('failed');
    expect(handle.status().failure).toMatch(
      /^MCP server "srv" closed the connection; restarting it failed: .*database is locked.*; the next call of one of its tools starts it again$/,
    );
    broken = false;
    const opened = factory.opened;
    expect((await call()).content).toBe(`server ${opened}`);
    expect(handle.status().state).toBe('connected');
    expect(handle.status().warnings[0]).toContain('(restart 2 of');
  });

  it('keeps a legacy server in its era: the restart skips the modern probe', async () => {
    const { factory, call, crash } = await mounted((server, index) => {
      legacyServer('2025-06-18', {
        tools: [{ name: 'echo', annotations: { readOnlyHint: true } }],
      })(server);
      server.on('tools/call', { result: { content: [{ type: 'text', text: `server ${index}` }] } });
    });
    const before = factory.opened;
    await crash();
    await call();
    expect(factory.opened).toBe(before + 1);
    const restartedServer = factory.servers.at(-1) as ScriptedServer;
    expect(restartedServer.requests('server/discover')).toEqual([]);
    expect(restartedServer.requests('initialize')).toHaveLength(1);
  });

  it('is not restarted once its scope closed', async () => {
    const { factory, scope, registry, crash } = await mounted(echoServer);
    await crash();
    await scope.close();
    expect(registry.get('mcp_srv_echo')).toBeUndefined();
    expect(factory.opened).toBe(1);
  });
});

import {
  createGlobalScope,
  LIMITS,
  PromptRegistry,
  RunEventStream,
  type Scope,
  ToolPipeline,
  ToolRegistry,
} from '@clat/kernel';
import { afterEach, describe, expect, it } from 'vitest';
import { MCP_LIMITS } from './limits.js';
import {
  type McpServerStatus,
  type MountedMcpServer,
  type MountMcpServerOptions,
  mountMcpServer,
} from './mount.js';
import {
  legacyServer,
  modernServer,
  ScriptedFactory,
  type ScriptedServer,
  type ServerSpec,
  settle,
} from './test-support/scripted-server.js';
import type { GetStreamState, Transport } from './transport.js';

const scopes: Scope[] = [];

afterEach(async () => {
  await Promise.all(scopes.splice(0).map((scope) => scope.close().catch(() => {})));
});

function kernel() {
  const registry = new ToolRegistry();
  const prompts = new PromptRegistry();
  const scope = createGlobalScope('test').child('project');
  scopes.push(scope);
  return { registry, prompts, scope };
}

async function mount(
  setupServer: (server: ScriptedServer, index: number) => void,
  k = kernel(),
  extra: Pick<MountMcpServerOptions, 'toolFilter' | 'narrowable' | 'hostName'> = {},
): Promise<{
  mounted: MountedMcpServer;
  statuses: McpServerStatus[];
  factory: ScriptedFactory;
  k: ReturnType<typeof kernel>;
}> {
  const factory = new ScriptedFactory(setupServer);
  const statuses: McpServerStatus[] = [];
  const mounted = await mountMcpServer({
    name: 'srv',
    factory,
    ...k,
    scope: k.scope.pluginScope('srv'),
    projectRoot: '/work/project',
    onStatus: (status) => statuses.push(status),
    ...extra,
  });
  return { mounted, statuses, factory, k };
}

const live = (factory: ScriptedFactory) => factory.servers.at(-1) as ScriptedServer;

const ANNOTATED: ServerSpec['tools'] = [
  { name: 'lookup', annotations: { readOnlyHint: true, openWorldHint: false } },
  { name: 'fetch', annotations: { readOnlyHint: true } },
  { name: 'save', annotations: { readOnlyHint: false, destructiveHint: false } },
  { name: 'drop', annotations: { readOnlyHint: false, destructiveHint: true } },
  { name: 'plain' },
  { name: 'odd', annotations: { readOnlyHint: 'yes' } },
];

describe('mountMcpServer tools', () => {
  it('registers mcp_{server}_{tool} with effects from annotations and reports status', async () => {
    const { mounted, statuses, k } = await mount(legacyServer('2025-06-18', { tools: ANNOTATED }));
    const effects = Object.fromEntries(k.registry.list().map((t) => [t.name, t.effect]));
    expect(effects).toEqual({
      mcp_srv_lookup: 'external-read',
      mcp_srv_fetch: 'network',
      mcp_srv_save: 'write',
      mcp_srv_drop: 'destructive',
      mcp_srv_plain: 'destructive',
      mcp_srv_odd: 'destructive',
    });
    expect(k.registry.get('mcp_srv_save')?.definition).toMatchObject({
      source: { kind: 'mcp', id: 'srv' },
      sourceName: 'save',
    });
    expect(statuses.map((s) => s.state)).toEqual(['connecting', 'connected']);
    expect(mounted.status()).toEqual({
      state: 'connected',
      era: 'legacy',
      protocolVersion: '2025-06-18',
      tools: 6,
      prompts: 0,
      systemPrompts: 0,
      warnings: [],
      stderrTail: [],
      logTail: [],
      roots: { offered: true, requests: 0 },
    });
    expect(mounted.client?.serverInfo).toEqual({ name: 'legacy-test', version: '1.2.3' });
  });

  it('calls tools through the kernel pipeline and maps the result', async () => {
    const { k, factory } = await mount((server) => {
      modernServer({ tools: [{ name: 'echo', annotations: { readOnlyHint: true } }] })(server);
      server.on('tools/call', (request) => ({
        result: {
          resultType: 'complete',
          content: [
            { type: 'text', text: `got ${JSON.stringify(request.params?.arguments)}` },
            { type: 'image', data: 'AA==', mimeType: 'image/png' },
            { type: 'text', text: 'second' },
          ],
          structuredContent: { n: 1 },
        },
      }));
    });
    const pipeline = new ToolPipeline({ registry: k.registry, events: new RunEventStream() });
    const result = await pipeline.call(
      'mcp_srv_echo',
      { q: 'x' },
      { runId: 'r', mode: 'project-write', signal: new AbortController().signal },
    );
    expect(result).toEqual({
      content: 'got {"q":"x"}\n[image image/png 1 B]\nsecond',
      blocks: [
        { type: 'text', text: 'got {"q":"x"}' },
        { type: 'image', data: 'AA==', mimeType: 'image/png' },
        { type: 'text', text: 'second' },
      ],
      structured: { n: 1 },
      bytes: 13 + 4 + 9 + 6 + 7,
    });
    expect(live(factory).requests('tools/call')[0]?.params).toMatchObject({
      name: 'echo',
      arguments: { q: 'x' },
    });
  });

  it('reports and skips name collisions without replacing earlier tools', async () => {
    const k = kernel();
    const other = createGlobalScope('other');
    scopes.push(other);
    k.registry.register(
      {
        definition: {
          name: 'mcp_srv_a',
          description: 'earlier',
          inputSchema: { type: 'object' },
          effect: 'read',
          source: { kind: 'native', id: '' },
        },
        invoke: async () => ({ content: 'native' }),
      },
      other,
    );
    const { mounted } = await mount(
      legacyServer('2025-11-25', { tools: [{ name: 'a' }, { name: 'b-c' }, { name: 'b_c' }] }),
      k,
    );
    expect(k.registry.get('mcp_srv_a')?.definition.description).toBe('earlier');
    expect(k.registry.get('mcp_srv_b_c')?.definition.sourceName).toBe('b-c');
    const status = mounted.status();
    expect(status.state).toBe('connected');
    expect(status.tools).toBe(1);
    expect(status.warnings).toHaveLength(2);
    expect(status.warnings.join('\n')).toContain('already registered');
  });

  it('lets a frozen registry refuse the server, closing its scope and connection', async () => {
    const k = kernel();
    k.registry.freeze();
    const factory = new ScriptedFactory(legacyServer('2025-11-25', { tools: [{ name: 'a' }] }));
    const scope = k.scope.pluginScope('srv');
    // No check of its own and no wording of its own: the registry's error reaches the host.
    await expect(
      mountMcpServer({ name: 'srv', factory, ...k, scope, projectRoot: '/p' }),
    ).rejects.toMatchObject({ code: 'REGISTRY_FROZEN' });
    expect(scope.closed).toBe(true);
    expect(k.registry.list()).toHaveLength(0);
    expect(live(factory).closed).toBe(true);
  });

  it('fails the server when tools/list breaks a limit, keeping nothing registered', async () => {
    const { mounted, factory, k } = await mount((server) => {
      legacyServer()(server);
      server.on('tools/list', { result: { tools: [{ name: 'a' }], nextCursor: 'again' } });
    });
    expect(mounted.status()).toMatchObject({ state: 'failed', tools: 0 });
    expect(mounted.status().failure).toContain('repeated cursor');
    expect(k.registry.list()).toHaveLength(0);
    expect(live(factory).closed).toBe(true);
  });

  describe('the per-server tool cap counts the tools includeTools/excludeTools keep', () => {
    const listing = legacyServer('2025-11-25', {
      tools: Array.from({ length: 600 }, (_, i) => ({ name: `t${i}` })),
    });
    const cap = LIMITS.toolsPerServer;
    const upTo = (count: number) => (tool: string) => Number(tool.slice(1)) < count;

    it('mounts a 600-tool server narrowed to one tool by its filter', async () => {
      const { mounted, k } = await mount(listing, kernel(), { toolFilter: (t) => t === 't0' });
      expect(mounted.status()).toMatchObject({ state: 'connected', tools: 1 });
      expect(mounted.status().warnings).toEqual([
        '599 tools of "srv" left out by includeTools/excludeTools',
      ]);
      expect(k.registry.list().map((tool) => tool.name)).toEqual(['mcp_srv_t0']);
    });

    it('registers exactly the cap', async () => {
      const { mounted } = await mount(listing, kernel(), { toolFilter: upTo(cap) });
      expect(mounted.status()).toMatchObject({ state: 'connected', tools: cap });
    });

    it('fails a server over the cap, naming the mcp.json fields only when they are editable', async () => {
      const over = await mount(listing, kernel(), { narrowable: true });
      expect(over.mounted.status()).toMatchObject({ state: 'failed', tools: 0 });
      expect(over.mounted.status().failure).toBe(
        `MCP server "srv" lists 600 tools, over the limit of ${cap} per server; narrow them with "includeTools" or "excludeTools" in its mcp.json entry`,
      );
      expect(over.k.registry.list()).toHaveLength(0);
      const kept = await mount(listing, kernel(), { toolFilter: upTo(cap + 1) });
      expect(kept.mounted.status().failure).toBe(
        `MCP server "srv" keeps ${cap + 1} of its 600 tools after includeTools/excludeTools, over the limit of ${cap} per server`,
      );
      expect(kept.k.registry.list()).toHaveLength(0);
    });
  });

  it('fails with the reason and the stderr tail when the handshake fails (the host redacts)', async () => {
    const { mounted } = await mount((server) => {
      server.on('initialize', { error: { code: -32603, message: 'bad key' } });
      server.client.diagnostics = () => ({ tail: ['starting up', 'listening'] });
    });
    const status = mounted.status();
    expect(status.state).toBe('failed');
    expect(mounted.client).toBeUndefined();
    expect(status.failure).toContain('failed both handshakes');
    expect(status.stderrTail).toEqual(['starting up', 'listening']);
  });

  it('fails cleanly when the transport cannot be opened', async () => {
    const k = kernel();
    const factory = new ScriptedFactory(() => {});
    factory.open = () => {
      throw new Error('spawn mcp-missing ENOENT');
    };
    const mounted = await mountMcpServer({
      name: 'srv',
      factory,
      ...k,
      scope: k.scope.pluginScope('srv'),
      projectRoot: '/p',
    });
    expect(mounted.status()).toMatchObject({ state: 'failed', tools: 0 });
    expect(mounted.status().failure).toContain('ENOENT');
  });

  it('reports a connection that dies after mounting', async () => {
    const { mounted, factory, statuses } = await mount(legacyServer());
    await live(factory).transport.close();
    expect(mounted.status().state).toBe('failed');
    expect(mounted.status().failure).toContain('closed the connection');
    expect(statuses.at(-1)?.state).toBe('failed');
  });

  it('reports a GET stream that settles after mounting, and nothing once closed', async () => {
    const { mounted, factory, statuses } = await mount(legacyServer());
    // Stands in for an HTTP transport whose GET is still on its way when the mount is done.
    const transport: Transport = live(factory).client;
    let state: GetStreamState = 'opening';
    transport.getStreamState = () => state;
    expect(mounted.status()).toMatchObject({ state: 'connected', getStream: 'opening' });
    expect(transport.ongetstreamstate).toBeTypeOf('function');

    const before = statuses.length;
    state = 'none';
    transport.ongetstreamstate?.('none');
    expect(statuses.slice(before)).toEqual([
      expect.objectContaining({ state: 'connected', getStream: 'none' }),
    ]);

    await mounted.close();
    const closed = statuses.length;
    state = 'closed';
    transport.ongetstreamstate?.('closed');
    expect(statuses).toHaveLength(closed);
  });

  it('stops a mount in progress when its scope closes, leaving nothing open', async () => {
    const k = kernel();
    const factory = new ScriptedFactory((server) => {
      legacyServer('2025-11-25', { tools: [{ name: 'a' }] })(server);
      server.on('initialize', { silent: true });
    });
    const mounting = mountMcpServer({
      name: 'srv',
      factory,
      ...k,
      scope: k.scope.pluginScope('srv'),
      projectRoot: '/p',
    });
    await settle();
    await k.scope.close();
    const mounted = await mounting;
    expect(mounted.status().state).toBe('closed');
    expect(k.registry.list()).toHaveLength(0);
    expect(factory.servers.every((server) => server.closed)).toBe(true);
  });

  it('revokes leases in reverse order before closing the connection when the scope closes', async () => {
    const k = kernel();
    const seenAtClose: number[] = [];
    const { mounted, factory } = await mount((server, index) => {
      legacyServer('2025-11-25', {
        tools: [{ name: 'a' }, { name: 'b' }],
        capabilities: { tools: {}, prompts: {} },
      })(server);
      server.on('prompts/list', {
        result: { prompts: [{ name: 'sys', _meta: { 'io.artec.clat/dshSystemPrompt': true } }] },
      });
      server.on('prompts/get', {
        result: { messages: [], _meta: { 'io.artec.clat/systemPrompt': 'Be nice' } },
      });
      const previous = server.transport.onclose;
      // Index 0 is the disposable probe transport.
      if (index === 0) return;
      server.transport.onclose = (error) => {
        seenAtClose.push(k.registry.list().length + k.prompts.list().length);
        previous?.(error);
      };
    }, k);
    expect(mounted.status()).toMatchObject({ tools: 2, prompts: 1, systemPrompts: 1 });
    await k.scope.close();
    expect(seenAtClose).toEqual([0]);
    expect(mounted.status().state).toBe('closed');
    expect(live(factory).closed).toBe(true);
    await mounted.close();
  });
});

describe('mountMcpServer marked DSH prompts', () => {
  function promptServer(prompts: Record<string, unknown>[], get: (name: string) => unknown) {
    return (server: ScriptedServer) => {
      legacyServer('2025-11-25', {
        tools: [{ name: 'tool' }],
        capabilities: { tools: {}, prompts: {} },
      })(server);
      server.on('prompts/list', { result: { prompts } });
      server.on('prompts/get', (request) => {
        const answer = get(String(request.params?.name));
        if (answer instanceof Error) return { error: { code: -32603, message: answer.message } };
        return { result: answer as Record<string, unknown> };
      });
    };
  }
  const MARK = { 'io.artec.clat/dshSystemPrompt': true };

  it('imports only marked prompts, resolved with cwd as the only argument', async () => {
    const { k, factory, mounted } = await mount(
      promptServer(
        [
          { name: 'system', _meta: MARK },
          { name: 'unmarked' },
          { name: 'joined', _meta: MARK },
          { name: 'falsy', _meta: { 'io.artec.clat/dshSystemPrompt': 'true' } },
        ],
        (name) =>
          name === 'system'
            ? { messages: [], _meta: { 'io.artec.clat/systemPrompt': 'Use the todo tools.' } }
            : {
                messages: [
                  { role: 'user', content: { type: 'text', text: 'one' } },
                  { role: 'user', content: { type: 'text', text: 'two' } },
                ],
              },
      ),
    );
    expect(k.prompts.list().map((p) => [p.name, p.text])).toEqual([
      ['mcp_srv_system', 'Use the todo tools.'],
      ['mcp_srv_joined', 'one\n\ntwo'],
    ]);
    const gets = live(factory).requests('prompts/get');
    expect(gets.map((g) => g.params)).toEqual([
      { name: 'system', arguments: { cwd: '/work/project' } },
      { name: 'joined', arguments: { cwd: '/work/project' } },
    ]);
    // Every prompt the server lists counts; the marked ones that registered are system prompts.
    expect(mounted.status()).toMatchObject({
      state: 'connected',
      tools: 1,
      prompts: 4,
      systemPrompts: 2,
    });
  });

  it('keeps the tools when prompt resolution fails or exceeds its limits', async () => {
    const cases: [Record<string, unknown>[], (name: string) => unknown, string][] = [
      [[{ name: 'p', _meta: MARK }], () => new Error('prompt exploded'), 'prompt exploded'],
      [
        [{ name: 'p', _meta: MARK }],
        () => ({
          messages: [],
          _meta: { 'io.artec.clat/systemPrompt': 'x'.repeat(MCP_LIMITS.dshPromptBytes + 1) },
        }),
        `${MCP_LIMITS.dshPromptBytes + 1} bytes`,
      ],
      [
        Array.from({ length: MCP_LIMITS.dshPromptsPerServer + 1 }, (_, i) => ({
          name: `p${i}`,
          _meta: MARK,
        })),
        () => ({ messages: [] }),
        String(MCP_LIMITS.dshPromptsPerServer),
      ],
    ];
    for (const [list, get, expected] of cases) {
      const { k, mounted } = await mount(promptServer(list, get));
      const status = mounted.status();
      expect(status.state).toBe('connected');
      expect(status.tools).toBe(1);
      expect(k.registry.has('mcp_srv_tool')).toBe(true);
      expect(status.warnings.join('\n')).toContain(expected);
    }
  });

  it('skips only the prompt that fails: the ones after it are still imported', async () => {
    const { k, mounted } = await mount(
      promptServer(
        [
          { name: 'huge', _meta: MARK },
          { name: 'broken', _meta: MARK },
          { name: 'fine', _meta: MARK },
        ],
        (name) =>
          name === 'huge'
            ? {
                messages: [],
                _meta: { 'io.artec.clat/systemPrompt': 'x'.repeat(MCP_LIMITS.dshPromptBytes + 1) },
              }
            : name === 'broken'
              ? new Error('prompt exploded')
              : { messages: [], _meta: { 'io.artec.clat/systemPrompt': 'Be brief.' } },
      ),
    );
    expect(k.prompts.list().map((p) => [p.name, p.text])).toEqual([['mcp_srv_fine', 'Be brief.']]);
    const status = mounted.status();
    expect(status).toMatchObject({ prompts: 3, systemPrompts: 1 });
    expect(status.warnings).toEqual([
      `DSH system prompt "huge" of "srv" skipped: resolved to ${MCP_LIMITS.dshPromptBytes + 1} bytes, over the limit of ${MCP_LIMITS.dshPromptBytes}`,
      expect.stringMatching(/^DSH system prompt "broken" of "srv" skipped: .*prompt exploded/),
    ]);
  });
});

describe('mountMcpServer tools/list_changed', () => {
  const first = [
    { name: 'keep', description: 'unchanged', annotations: { readOnlyHint: true } },
    { name: 'gone', description: 'removed later' },
    { name: 'edit', description: 'old text' },
  ];
  const second = [
    { name: 'keep', description: 'unchanged', annotations: { readOnlyHint: true } },
    { name: 'edit', description: 'new text' },
    { name: 'late', description: 'loaded after initialize' },
  ];

  /** Mounts a legacy server, then has it list `tools` and announce the change. */
  async function changeTo(server: ScriptedServer, tools: Record<string, unknown>[]) {
    server.on('tools/list', { result: { tools } });
    await server.notify('notifications/tools/list_changed');
  }

  it('before the freeze: registers the changed and new tools and removes the gone ones', async () => {
    const { mounted, k, factory, statuses } = await mount(
      legacyServer('2025-11-25', { tools: first }),
    );
    const keep = k.registry.get('mcp_srv_keep');
    await changeTo(live(factory), second);
    await settle();
    expect(k.registry.list().map((t) => [t.name, t.description])).toEqual([
      ['mcp_srv_keep', 'unchanged'],
      ['mcp_srv_edit', 'new text'],
      ['mcp_srv_late', 'loaded after initialize'],
    ]);
    // An unchanged tool is not registered again.
    expect(k.registry.get('mcp_srv_keep')).toBe(keep);
    expect(mounted.status()).toMatchObject({ state: 'connected', tools: 3, warnings: [] });
    expect(statuses.at(-1)?.tools).toBe(3);
    expect(live(factory).requests('tools/list')).toHaveLength(2);
  });

  it('after the freeze: changes nothing and says a restart picks the new list up', async () => {
    const { mounted, k, factory } = await mount(legacyServer('2025-11-25', { tools: first }));
    k.registry.freeze();
    await changeTo(live(factory), second);
    await settle();
    expect(k.registry.list().map((t) => t.name)).toEqual([
      'mcp_srv_keep',
      'mcp_srv_gone',
      'mcp_srv_edit',
    ]);
    const warning =
      'the tool list of "srv" changed (1 added, 1 removed, 1 changed) after the registries froze; restart CLAT to use the new list';
    expect(mounted.status()).toMatchObject({ state: 'connected', tools: 3, warnings: [warning] });
    // Announced again: still one warning, naming the latest change.
    await changeTo(live(factory), first.slice(0, 1));
    await settle(200);
    expect(mounted.status().warnings).toEqual([
      'the tool list of "srv" changed (2 removed) after the registries froze; restart CLAT to use the new list',
    ]);
  });

  it("names the host's program in the restart advice (a distribution's own name)", async () => {
    const k = kernel();
    const { mounted, factory } = await mount(legacyServer('2025-11-25', { tools: first }), k, {
      hostName: 'clat-gateway',
    });
    k.registry.freeze();
    await changeTo(live(factory), second);
    await settle();
    expect(mounted.status().warnings).toEqual([
      'the tool list of "srv" changed (1 added, 1 removed, 1 changed) after the registries froze; restart clat-gateway to use the new list',
    ]);
  });

  it('re-lists once for a burst of announcements, and not at all once closed', async () => {
    const { mounted, factory } = await mount(legacyServer('2025-11-25', { tools: first }));
    const server = live(factory);
    for (let i = 0; i < 5; i++) void server.notify('notifications/tools/list_changed');
    await settle();
    // One re-list for the first, at most one more for the rest (after RELIST_INTERVAL_MS).
    const relists = server.requests('tools/list').length - 1;
    expect(relists).toBeGreaterThanOrEqual(1);
    expect(relists).toBeLessThanOrEqual(2);
    await mounted.close();
    const before = server.requests('tools/list').length;
    await server.notify('notifications/tools/list_changed').catch(() => {});
    await settle();
    expect(server.requests('tools/list')).toHaveLength(before);
  });
});

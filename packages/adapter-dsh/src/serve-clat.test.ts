import { DSH_SYSTEM_PROMPT_META, HostServicesMethod, SYSTEM_PROMPT_META } from '@clat/adapter-mcp';
import type { Client } from '@modelcontextprotocol/client';
import { afterEach, describe, expect, it } from 'vitest';
import * as z from 'zod';
import type { DshPluginContext } from './dsh-context.js';
import { DSH_PROMPT_NAME } from './serve-clat.js';
import { newClient, type ServedPair, servePaired } from './test-support.js';

const textTool = (name: string, run: (args: Record<string, unknown>, ctx: unknown) => unknown) => ({
  name,
  description: `${name} tool`,
  parameters: {
    type: 'object',
    properties: { q: { type: 'string' } },
    additionalProperties: false,
  },
  output: {
    render: (_args: unknown, value: unknown) => [{ type: 'text', text: JSON.stringify(value) }],
  },
  execute: run,
});

interface Opened {
  pair: ServedPair;
  client: Client;
}

const open: Opened[] = [];

async function connect(
  plugin: unknown,
  options: Parameters<typeof servePaired>[1] = {},
  mode: 'legacy' | 'auto' = 'legacy',
) {
  const pair = await servePaired(plugin, options);
  const client = newClient(undefined, mode);
  await client.connect(pair.transport as never);
  const opened = { pair, client };
  open.push(opened);
  return opened;
}

afterEach(async () => {
  for (const { client, pair } of open.splice(0)) {
    await client.close().catch(() => {});
    await pair.server.dispose();
  }
});

describe('serveClat', () => {
  it('serves registered tools with their JSON Schema, hint annotations and structured results', async () => {
    const plugin = {
      name: 'demo',
      apply(ctx: DshPluginContext) {
        ctx.tools.register(textTool('lookup', (args) => ({ found: args.q })));
        ctx.tools.register(textTool('fetch_page', () => ({ ok: true })));
        ctx.tools.register(textTool('save', () => ({ saved: 1 })));
        ctx.tools.register(textTool('wipe', () => ({ wiped: true })));
      },
    };
    const { client } = await connect(plugin, {
      toolHints: { lookup: 'read-only', fetch_page: 'network', save: 'write', wipe: 'destructive' },
    });
    const { tools } = await client.listTools();
    const byName = Object.fromEntries(tools.map((tool) => [tool.name, tool]));
    expect(Object.keys(byName).sort()).toEqual(['fetch_page', 'lookup', 'save', 'wipe']);
    expect(byName.lookup?.inputSchema).toEqual({
      type: 'object',
      properties: { q: { type: 'string' } },
      additionalProperties: false,
    });
    expect(byName.lookup?.annotations).toEqual({ readOnlyHint: true, openWorldHint: false });
    expect(byName.fetch_page?.annotations).toEqual({ readOnlyHint: true, openWorldHint: true });
    expect(byName.save?.annotations).toEqual({
      readOnlyHint: false,
      destructiveHint: false,
      openWorldHint: false,
    });
    expect(byName.wipe?.annotations).toBeUndefined();

    const result = await client.callTool({ name: 'lookup', arguments: { q: 'needle' } });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toEqual({ found: 'needle' });
    expect(result.content).toEqual([{ type: 'text', text: '{"found":"needle"}' }]);
  });

  it('answers a modern server/discover probe and a legacy initialize from the same plugin', async () => {
    let applied = 0;
    const plugin = (ctx: DshPluginContext) => {
      applied += 1;
      ctx.tools.register(textTool('ping_tool', () => 'pong'));
    };
    const modern = await connect(plugin, {}, 'auto');
    expect(modern.client.getNegotiatedProtocolVersion()).toBe('2026-07-28');
    expect(modern.client.getDiscoverResult()?.capabilities.experimental).toEqual({
      'io.artec.clat/hostServices': { version: '0.1.0' },
    });
    const { tools } = await modern.client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(['ping_tool']);
    const scalar = await modern.client.callTool({ name: 'ping_tool', arguments: {} });
    expect(scalar.structuredContent).toEqual({ result: 'pong' });
    expect(applied).toBe(1);

    const legacy = await connect(plugin);
    expect((await legacy.client.listTools()).tools).toHaveLength(1);
    expect(applied).toBe(2);
    expect(legacy.client.getNegotiatedProtocolVersion()).toBe('2025-11-25');
    expect(legacy.client.getServerCapabilities()?.experimental).toEqual({
      'io.artec.clat/hostServices': { version: '0.1.0' },
    });
  });

  it('lists ONE marked system prompt and resolves it with the cwd argument', async () => {
    const plugin = (ctx: DshPluginContext) => {
      ctx.systemPrompt.section({ name: 'intro', order: 1, text: 'You work in {{cwd}}.' });
      ctx.systemPrompt.section({ name: 'rules', order: 0, text: 'Rule zero.' });
      ctx.systemPrompt.context({ name: 'state', order: 0, text: 'two todos open' });
    };
    const { client } = await connect(plugin);
    const { prompts } = await client.listPrompts();
    expect(prompts).toHaveLength(1);
    expect(prompts[0]?.name).toBe(DSH_PROMPT_NAME);
    expect(prompts[0]?._meta).toEqual({ [DSH_SYSTEM_PROMPT_META]: true });
    const got = await client.getPrompt({
      name: DSH_PROMPT_NAME,
      arguments: { cwd: '/projects/alpha' },
    });
    const text = 'Rule zero.\n\nYou work in /projects/alpha.';
    expect(got._meta?.[SYSTEM_PROMPT_META]).toBe(text);
    expect(got.messages).toEqual([{ role: 'user', content: { type: 'text', text } }]);
    expect(String(got._meta?.['io.artec.clat/runtimeContext'])).toContain('two todos open');
  });

  it('does not advertise prompts when the plugin contributes none', async () => {
    const { client } = await connect((ctx: DshPluginContext) =>
      ctx.tools.register(textTool('only', () => 1)),
    );
    expect(client.getServerCapabilities()?.prompts).toBeUndefined();
  });

  it('turns ctx.llm.stream into sampling/createMessage (text only) during a tool call', async () => {
    const plugin = (ctx: DshPluginContext) => {
      ctx.tools.register(
        textTool('summarize', async (args) => {
          let text = '';
          const chunks: string[] = [];
          for await (const chunk of ctx.llm.stream({
            system: 'Be brief.',
            messages: [
              { role: 'system', content: 'Extra rule.' },
              { role: 'user', content: [{ type: 'text', text: `Summarize ${args.q}` }] },
            ],
            maxTokens: 99.7,
          })) {
            chunks.push(chunk.type);
            if (chunk.type === 'text-delta') text += chunk.text;
          }
          return { text, chunks };
        }),
      );
    };
    const { client } = await connect(plugin);
    const seen: unknown[] = [];
    client.setRequestHandler('sampling/createMessage', async (request) => {
      seen.push(request.params);
      return {
        role: 'assistant',
        model: 'scripted',
        content: { type: 'text', text: 'short summary' },
        stopReason: 'endTurn',
      };
    });
    const result = await client.callTool({ name: 'summarize', arguments: { q: 'the file' } });
    expect(result.structuredContent).toEqual({
      text: 'short summary',
      chunks: ['block-start', 'text-delta', 'block-end', 'finish'],
    });
    expect(seen).toEqual([
      {
        messages: [{ role: 'user', content: { type: 'text', text: 'Summarize the file' } }],
        maxTokens: 99,
        includeContext: 'none',
        systemPrompt: 'Be brief.\n\nExtra rule.',
      },
    ]);
  });

  it('turns ctx.userQuestions.ask into elicitation/create and maps the answers', async () => {
    const plugin = (ctx: DshPluginContext) => {
      ctx.tools.register(
        textTool('choose', () =>
          ctx.userQuestions.ask({
            questions: [
              {
                id: 'color',
                question: 'Which color?',
                options: [{ label: 'red' }, { label: 'blue' }],
              },
              { id: 'note', question: 'Any note?' },
            ],
          }),
        ),
      );
    };
    const { client } = await connect(plugin);
    const forms: Record<string, unknown>[] = [];
    client.setRequestHandler('elicitation/create', async (request) => {
      forms.push(request.params as Record<string, unknown>);
      return { action: 'accept', content: { color: 'blue', note: 'thanks' } };
    });
    const result = await client.callTool({ name: 'choose', arguments: {} });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toEqual({
      answers: [
        { id: 'color', selected: ['blue'] },
        { id: 'note', selected: [], custom: 'thanks' },
      ],
    });
    expect(forms[0]?.message).toBe('Which color?');
    const schema = forms[0]?.requestedSchema as {
      properties: Record<string, Record<string, unknown>>;
      required: string[];
    };
    expect(Object.keys(schema.properties)).toEqual(['color', 'note']);
    expect(schema.required).toEqual(['color', 'note']);

    client.setRequestHandler('elicitation/create', async () => ({ action: 'decline' }));
    const declined = await client.callTool({ name: 'choose', arguments: {} });
    expect(declined.isError).toBe(true);
    expect(JSON.stringify(declined.content)).toContain('[USER_DECLINED]');
  });

  it('serves ctx.fs and ctx.clat through io.artec.clat host-tool requests', async () => {
    const plugin = (ctx: DshPluginContext) => {
      ctx.tools.register(
        textTool('peek', async (args) => {
          const target = await ctx.fs.resolve(String(args.q));
          const text = await ctx.fs.readText(target);
          const context = await ctx.clat.context();
          return { text, root: context.project.root, path: target.displayPath };
        }),
      );
    };
    const { client } = await connect(plugin);
    const calls: unknown[] = [];
    const snapshot = {
      protocolVersion: '0.1.0',
      project: { root: '/work/project' },
      run: null,
      hostTools: ['read_file'],
    };
    client.setRequestHandler(
      HostServicesMethod.contextGet,
      { params: z.object({}).passthrough() },
      async () => snapshot,
    );
    client.setRequestHandler(
      HostServicesMethod.toolsCall,
      { params: z.object({ name: z.string(), arguments: z.record(z.string(), z.unknown()) }) },
      async (params) => {
        calls.push(params);
        return {
          output: { path: 'src/a.txt', content: '1 | alpha\n2 | beta\n', truncated: false },
        };
      },
    );
    const result = await client.callTool({ name: 'peek', arguments: { q: 'src/a.txt' } });
    expect(result.structuredContent).toEqual({
      text: 'alpha\nbeta\n',
      root: '/work/project',
      path: 'src/a.txt',
    });
    expect(calls).toEqual([
      { name: 'read_file', arguments: { path: 'src/a.txt', max_bytes: 524288 } },
    ]);
  });

  it('fails host seams with a typed error when the client did not negotiate them', async () => {
    const plugin = (ctx: DshPluginContext) => {
      ctx.tools.register(textTool('peek', () => ctx.clat.callTool('read_file', { path: 'x' })));
      ctx.tools.register(
        textTool('sample', async () => {
          for await (const _ of ctx.llm.stream({ messages: [{ role: 'user', content: 'hi' }] })) {
            // drained
          }
        }),
      );
    };
    const pair = await servePaired(plugin);
    const client = newClient({});
    await client.connect(pair.transport as never);
    open.push({ pair, client });
    const peek = await client.callTool({ name: 'peek', arguments: {} });
    expect(peek.isError).toBe(true);
    expect(JSON.stringify(peek.content)).toContain('[CLAT_HOST_UNAVAILABLE]');
    const sample = await client.callTool({ name: 'sample', arguments: {} });
    expect(JSON.stringify(sample.content)).toContain('[NO_SAMPLING]');
  });

  it('renders a tool throw as an isError result with [CODE] text', async () => {
    const plugin = (ctx: DshPluginContext) => {
      ctx.tools.register(
        textTool('boom', () => {
          throw Object.assign(new Error('it broke'), { code: 'E_BROKE' });
        }),
      );
    };
    const { client } = await connect(plugin);
    const result = await client.callTool({ name: 'boom', arguments: {} });
    expect(result).toMatchObject({
      isError: true,
      content: [{ type: 'text', text: '[E_BROKE] it broke' }],
    });
    const unknown = await client.callTool({ name: 'nope', arguments: {} });
    expect(JSON.stringify(unknown.content)).toContain('[UNKNOWN_TOOL]');
  });
});

describe('cancellation and limits', () => {
  it('aborts the tool signal when the client cancels the call (notifications/cancelled)', async () => {
    let started!: () => void;
    const running = new Promise<void>((resolve) => {
      started = resolve;
    });
    const seen: string[] = [];
    const plugin = (ctx: DshPluginContext) => {
      ctx.tools.register(
        textTool('wait', (_args, exec) => {
          const { signal } = exec as { signal: AbortSignal };
          started();
          return new Promise((_resolve, reject) => {
            signal.addEventListener('abort', () => {
              seen.push('aborted');
              reject(new Error('stopped'));
            });
          });
        }),
      );
    };
    const { client } = await connect(plugin);
    const controller = new AbortController();
    const call = client.callTool({ name: 'wait', arguments: {} }, { signal: controller.signal });
    await running;
    controller.abort();
    await expect(call).rejects.toThrow();
    for (let i = 0; i < 200 && seen.length === 0; i += 1)
      await new Promise((r) => setTimeout(r, 5));
    expect(seen).toEqual(['aborted']);
  });

  it('refuses to resolve a system prompt larger than CLAT accepts (256 KiB)', async () => {
    const plugin = (ctx: DshPluginContext) => {
      ctx.systemPrompt.section({ name: 'huge', order: 0, text: 'x'.repeat(256 * 1024 + 1) });
    };
    const { client } = await connect(plugin);
    await expect(client.getPrompt({ name: DSH_PROMPT_NAME, arguments: {} })).rejects.toThrow(
      /PROMPT_FAILED.*262145 bytes/,
    );
    await expect(client.getPrompt({ name: 'other', arguments: {} })).rejects.toThrow(
      /UNKNOWN_PROMPT/,
    );
  });
});

describe('modern wire as CLAT speaks it', () => {
  const META = (caps: Record<string, unknown>) => ({
    'io.modelcontextprotocol/protocolVersion': '2026-07-28',
    'io.modelcontextprotocol/clientCapabilities': caps,
    'io.modelcontextprotocol/clientInfo': { name: 'clat', version: '0.0.0' },
  });

  function nextFrame(
    transport: { received: Record<string, unknown>[] },
    match: (frame: Record<string, unknown>) => boolean,
  ) {
    return (async () => {
      for (let i = 0; i < 400; i += 1) {
        const found = transport.received.find(match);
        if (found !== undefined) return found;
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      throw new Error(`no matching frame; got ${JSON.stringify(transport.received)}`);
    })();
  }

  it('sends sampling as a server request on a 2026-07-28 connection and completes the call', async () => {
    const plugin = (ctx: DshPluginContext) => {
      ctx.tools.register(
        textTool('ask_model', async () => {
          let text = '';
          for await (const chunk of ctx.llm.stream({
            messages: [{ role: 'user', content: 'hi' }],
          })) {
            if (chunk.type === 'text-delta') text += chunk.text;
          }
          return { text };
        }),
      );
    };
    const pair = await servePaired(plugin);
    open.push({ pair, client: { close: async () => pair.transport.close() } as unknown as Client });
    const wire = pair.transport;
    await wire.start();
    const caps = {
      sampling: {},
      elicitation: {},
      experimental: { 'io.artec.clat/hostServices': { version: '0.1.0' } },
    };
    await wire.send({
      jsonrpc: '2.0',
      id: 1,
      method: 'server/discover',
      params: { _meta: META(caps) },
    } as never);
    const discover = await nextFrame(wire, (frame) => frame.id === 1);
    expect(discover.result).toMatchObject({
      resultType: 'complete',
      supportedVersions: expect.arrayContaining(['2026-07-28']),
    });
    await wire.send({
      jsonrpc: '2.0',
      id: 2,
      method: 'tools/call',
      params: { name: 'ask_model', arguments: {}, _meta: META(caps) },
    } as never);
    const sampling = await nextFrame(wire, (frame) => frame.method === 'sampling/createMessage');
    expect(sampling.params).toMatchObject({
      maxTokens: 4096,
      messages: [{ role: 'user', content: { type: 'text', text: 'hi' } }],
    });
    await wire.send({
      jsonrpc: '2.0',
      id: sampling.id,
      result: {
        role: 'assistant',
        model: 'm',
        content: { type: 'text', text: 'hello' },
        stopReason: 'endTurn',
      },
    } as never);
    const done = await nextFrame(wire, (frame) => frame.id === 2);
    expect(done.result).toMatchObject({
      resultType: 'complete',
      structuredContent: { text: 'hello' },
    });
  });

  it('answers an unparsable line with -32700 and keeps serving', async () => {
    const pair = await servePaired((ctx: DshPluginContext) =>
      ctx.tools.register(textTool('x', () => 1)),
    );
    open.push({ pair, client: { close: async () => pair.transport.close() } as unknown as Client });
    const wire = pair.transport;
    await wire.start();
    wire.writeRaw('{not json\n');
    const error = await nextFrame(wire, (frame) => frame.error !== undefined);
    expect(error).toMatchObject({ id: null, error: { code: -32700 } });
    await wire.send({
      jsonrpc: '2.0',
      id: 7,
      method: 'server/discover',
      params: { _meta: META({}) },
    } as never);
    expect((await nextFrame(wire, (frame) => frame.id === 7)).result).toMatchObject({
      resultType: 'complete',
    });
  });
});

describe('plugin loading and lifecycle', () => {
  it('validates config through Config and rejects with CONFIG_INVALID', async () => {
    const plugin = {
      Config: z.object({ endpoint: z.string().url() }),
      apply() {},
    };
    await expect(servePaired(plugin, { config: { endpoint: 42 } })).rejects.toMatchObject({
      code: 'CONFIG_INVALID',
    });
    let seen: unknown;
    const ok = await servePaired(
      {
        Config: z.object({ endpoint: z.string().url() }),
        apply: (_ctx: unknown, config: unknown) => {
          seen = config;
        },
      },
      { config: { endpoint: 'http://127.0.0.1:1/' } },
    );
    expect(seen).toEqual({ endpoint: 'http://127.0.0.1:1/' });
    await ok.server.dispose();
  });

  it('fails at startup listing every required service it does not provide', async () => {
    const plugin = { inject: ['tools', 'database', 'scheduler', 'web?'], apply() {} };
    const failure = servePaired(plugin);
    await expect(failure).rejects.toMatchObject({
      code: 'SPINE_SERVICE',
      data: { missing: ['database', 'scheduler'] },
    });
    await expect(failure).rejects.toThrow(/database, scheduler/);
  });

  it('fails apply() that touches an unknown ctx member instead of running silently', async () => {
    await expect(
      servePaired((ctx: Record<string, { connect(): void }>) => ctx.database?.connect()),
    ).rejects.toMatchObject({
      code: 'SPINE_SERVICE',
    });
  });

  it('runs returned, yielded and registered disposers in reverse order, once', async () => {
    const order: string[] = [];
    class Counter {
      static inject = ['tools'];
      constructor(ctx: DshPluginContext, _config: unknown) {
        ctx.effect(() => () => order.push('effect'));
      }
      *[Symbol.for('cordis.init')]() {
        yield () => order.push('yield-1');
        yield () => order.push('yield-2');
        return () => order.push('returned');
      }
    }
    const fn = async (ctx: DshPluginContext) => {
      ctx.tools.register(textTool('t', () => 1));
      ctx.on('custom', () => {});
      return () => order.push('fn-cleanup');
    };
    const a = await servePaired(Counter);
    await a.server.dispose();
    await a.server.dispose();
    expect(order).toEqual(['returned', 'yield-2', 'yield-1', 'effect']);
    order.length = 0;
    const b = await servePaired(fn);
    expect(b.server.listTools().map((tool) => tool.name)).toEqual(['t']);
    await b.server.dispose();
    expect(order).toEqual(['fn-cleanup']);
    expect(b.server.listTools()).toEqual([]);
  });

  it('rejects a throwing apply with APPLY_FAILED and cleans up what it registered', async () => {
    const order: string[] = [];
    const plugin = (ctx: DshPluginContext) => {
      ctx.effect(() => () => order.push('cleaned'));
      throw new Error('no network');
    };
    await expect(servePaired(plugin)).rejects.toMatchObject({ code: 'APPLY_FAILED' });
    expect(order).toEqual(['cleaned']);
  });

  it('warns on stderr about tool hints for tools the plugin did not register', async () => {
    const pair = await servePaired(
      (ctx: DshPluginContext) => ctx.tools.register(textTool('real', () => 1)),
      {
        toolHints: { real: 'write', reel: 'read-only' },
      },
    );
    expect(pair.stderr.join('\n')).toContain(
      'toolHints name tools the plugin did not register: reel',
    );
    await pair.server.dispose();
  });

  it('writes logger output to stderr only', async () => {
    const pair = await servePaired((ctx: DshPluginContext) =>
      ctx.logger('named').info('hello %s', 'world'),
    );
    expect(pair.stderr).toContain('[dsh:named] info hello world');
    await pair.server.dispose();
  });
});

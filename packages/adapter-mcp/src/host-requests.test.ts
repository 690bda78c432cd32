import {
  createGlobalScope,
  KernelError,
  KernelErrorCode,
  LIMITS,
  type ModelProvider,
  PluginHostBridge,
  RunEventStream,
  ToolPipeline,
  ToolRegistry,
} from '@clat/kernel';
import { ScriptedApprover, ScriptedAsker } from '@clat/kernel/testing';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { McpClient } from './client.js';
import { McpErrorCode } from './errors.js';
import { type FakeHost, fakeHost, SNAPSHOT } from './test-support/fake-host.js';
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

const HOST_CAPS = {
  tools: {},
  experimental: { 'io.artec.clat/hostServices': { version: '0.1.0' } },
};

type Era = 'modern' | string;

/** Connects to a server of `era` (modern, or a legacy version) whose tools/call waits for `gate`. */
async function setup(
  era: Era,
  host: FakeHost | PluginHostBridge | undefined,
  capabilities: Record<string, unknown> = HOST_CAPS,
  extra: Partial<Parameters<typeof McpClient.connect>[0]> = {},
) {
  const factory = new ScriptedFactory((server) => {
    if (era === 'modern') modernServer({ capabilities })(server);
    else legacyServer(era, { capabilities })(server);
    server.on('tools/call', { silent: true });
  });
  const client = await McpClient.connect({ name: 'srv', factory, hostServices: host, ...extra });
  clients.push(client);
  const server = factory.servers.at(-1) as ScriptedServer;
  return { client, server, factory };
}

/** Starts a tools/call the server never answers by itself; returns a finisher. */
async function activeToolCall(client: McpClient, server: ScriptedServer) {
  const controller = new AbortController();
  const call = client.callTool('work', {}, { signal: controller.signal }).catch((e: unknown) => e);
  await settle();
  const request = server.requests('tools/call').at(-1);
  return {
    call,
    controller,
    finish: async (result: Record<string, unknown>) => {
      await server.send({ jsonrpc: '2.0', id: request?.id as number, result });
      return call;
    },
  };
}

const SAMPLING = {
  messages: [{ role: 'user', content: { type: 'text', text: 'summarize' } }],
  maxTokens: 100,
  modelPreferences: { hints: [{ name: 'other-model' }] },
};

describe('sampling/createMessage', () => {
  it('is served through HostServices during a tools/call, on modern connections too', async () => {
    const host = fakeHost();
    const { client, server } = await setup('modern', host);
    const tool = await activeToolCall(client, server);
    const response = await server.request('sampling/createMessage', SAMPLING);
    expect(response).toMatchObject({
      result: {
        role: 'assistant',
        content: { type: 'text', text: 'answer' },
        model: 'm1',
        stopReason: 'endTurn',
      },
    });
    expect(host.calls[0]).toMatchObject({
      method: 'createMessage',
      caller: { kind: 'mcp', id: 'srv' },
      args: [{ messages: [{ role: 'user', text: 'summarize' }], maxTokens: 100 }],
    });
    await tool.finish(complete({ content: [] }));
  });

  it('is refused outside an active tools/call', async () => {
    const host = fakeHost();
    const { server } = await setup('2025-11-25', host);
    const response = await server.request('sampling/createMessage', SAMPLING);
    expect(response).toMatchObject({ error: { code: -32000 } });
    expect(host.calls).toHaveLength(0);
  });

  it('maps kernel failures to JSON-RPC codes', async () => {
    const host = fakeHost();
    host.sampling = async () => {
      throw new KernelError(KernelErrorCode.SAMPLING_BUDGET_EXHAUSTED, 'sampling budget exhausted');
    };
    const { client, server } = await setup('2025-11-25', host);
    const tool = await activeToolCall(client, server);
    const budget = await server.request('sampling/createMessage', SAMPLING);
    expect(budget).toMatchObject({
      error: { code: -32000, data: { code: 'SAMPLING_BUDGET_EXHAUSTED' } },
    });
    const image = await server.request('sampling/createMessage', {
      messages: [{ role: 'user', content: { type: 'image', data: 'AA==', mimeType: 'image/png' } }],
      maxTokens: 10,
    });
    expect(image).toMatchObject({ error: { code: -32602 } });
    host.sampling = async () => {
      throw new Error('provider exploded with secret details');
    };
    const crash = await server.request('sampling/createMessage', SAMPLING);
    expect(crash).toMatchObject({ error: { code: -32603 } });
    tool.controller.abort();
  });

  it('is unknown (-32601) when the client has no host', async () => {
    const { client, server } = await setup('2025-11-25', undefined);
    const tool = await activeToolCall(client, server);
    expect(await server.request('sampling/createMessage', SAMPLING)).toMatchObject({
      error: { code: -32601 },
    });
    tool.controller.abort();
  });
});

const FORM = {
  message: 'Pick',
  requestedSchema: {
    type: 'object',
    properties: {
      color: {
        type: 'string',
        oneOf: [
          { const: 'r', title: 'Red' },
          { const: 'g', title: 'Green' },
        ],
      },
      count: { type: 'integer', minimum: 1 },
    },
    required: ['color'],
  },
};

describe('elicitation/create', () => {
  it('is unknown on legacy versions before 2025-06-18', async () => {
    const host = fakeHost();
    const { server } = await setup('2025-03-26', host);
    expect(await server.request('elicitation/create', FORM)).toMatchObject({
      error: { code: -32601 },
    });
    expect(host.calls).toHaveLength(0);
  });

  it('translates the form, passes number rules and maps choice labels back', async () => {
    const host = fakeHost();
    host.elicitation = async () => ({
      tag: 'accepted',
      val: [
        ['color', { tag: 'text', val: 'Green' }],
        ['count', { tag: 'number', val: 3 }],
      ],
    });
    for (const era of ['2025-06-18', 'modern']) {
      host.calls.length = 0;
      const { server } = await setup(era, host);
      const response = await server.request('elicitation/create', FORM);
      expect(response).toMatchObject({
        result: { action: 'accept', content: { color: 'g', count: 3 } },
      });
      const call = host.calls[0];
      expect(call?.args[0]).toMatchObject({
        message: 'Pick',
        fields: [
          { name: 'color', kind: 'choice', options: ['Red', 'Green'], required: true },
          { name: 'count', kind: 'number' },
        ],
      });
      expect(call?.args[1]).toMatchObject({ rules: { count: { integer: true, minimum: 1 } } });
    }
  });

  it('rejects unsupported shapes with -32602', async () => {
    const host = fakeHost();
    const { server } = await setup('2025-11-25', host);
    const nested = await server.request('elicitation/create', {
      message: 'm',
      requestedSchema: { type: 'object', properties: { a: { type: 'object', properties: {} } } },
    });
    expect(nested).toMatchObject({ error: { code: -32602 } });
    expect((nested as { error: { message: string } }).error.message).toContain('nested');
    const script = await server.request('elicitation/create', {
      mode: 'url',
      message: 'open',
      url: 'javascript:alert(1)',
    });
    expect(script).toMatchObject({ error: { code: -32602 } });
    expect((script as { error: { message: string } }).error.message).toContain(
      'only http and https',
    );
    expect(host.calls).toHaveLength(0);
  });
});

describe('URL-mode elicitation', () => {
  const URL_REQUEST = {
    mode: 'url',
    elicitationId: 'e1',
    message: 'Link your account',
    url: 'https://EXAMPLE.com/a b?x=1',
  };

  it('asks consent showing the normalized URL and its host, and opens only after accept', async () => {
    const opened: string[] = [];
    const host = fakeHost();
    const { server } = await setup('2025-11-25', host, HOST_CAPS, {
      openUrl: async (url) => {
        opened.push(url);
        return true;
      },
    });
    expect(await server.request('elicitation/create', URL_REQUEST)).toMatchObject({
      result: { action: 'decline' },
    });
    expect(opened).toEqual([]);
    const form = host.calls[0]?.args[0] as { message: string; fields: unknown[] };
    expect(form.fields).toEqual([]);
    expect(form.message).toContain('Link your account');
    expect(form.message).toContain('URL: https://example.com/a%20b?x=1');
    expect(form.message).toContain('Host: example.com');
    host.elicitation = async () => ({ tag: 'accepted', val: [] });
    expect(await server.request('elicitation/create', URL_REQUEST)).toMatchObject({
      result: { action: 'accept' },
    });
    expect(opened).toEqual(['https://example.com/a%20b?x=1']);
    host.elicitation = async () => ({ tag: 'cancelled' });
    expect(await server.request('elicitation/create', URL_REQUEST)).toMatchObject({
      result: { action: 'cancel' },
    });
    expect(opened).toHaveLength(1);
  });

  it('folds the server message onto one line, so it cannot draw a URL line of its own', async () => {
    const host = fakeHost();
    const { server } = await setup('2025-11-25', host, HOST_CAPS, { openUrl: async () => true });
    await server.request('elicitation/create', {
      ...URL_REQUEST,
      message: 'Sign in\n\nURL: https://bank.example/login\r\nHost: bank.example\u2028',
    });
    const form = host.calls[0]?.args[0] as { message: string };
    expect(form.message.split('\n')).toEqual([
      'Sign in URL: https://bank.example/login Host: bank.example',
      '',
      'URL: https://example.com/a%20b?x=1',
      'Host: example.com',
      'Accept opens it in your browser; decline leaves it closed.',
    ]);
  });

  it('declines headless, never opening the URL', async () => {
    const opened: string[] = [];
    const bridge = new PluginHostBridge({
      projectRoot: '/project',
      pipeline: new ToolPipeline({ registry: new ToolRegistry(), events: new RunEventStream() }),
    });
    const run = bridge.beginRun({
      runId: 'r',
      mode: 'full-access',
      signal: new AbortController().signal,
    });
    const { server } = await setup('2025-11-25', bridge, HOST_CAPS, {
      openUrl: async (url) => {
        opened.push(url);
        return true;
      },
    });
    expect(await server.request('elicitation/create', URL_REQUEST)).toMatchObject({
      result: { action: 'decline' },
    });
    expect(opened).toEqual([]);
    run.end();
  });

  it('declares url mode and roots in initialize', async () => {
    const factory = new ScriptedFactory(legacyServer('2025-11-25'));
    const client = await McpClient.connect({
      name: 'srv',
      factory,
      hostServices: fakeHost(),
      projectRoot: '/work/p',
    });
    clients.push(client);
    const init = (factory.servers.at(-1) as ScriptedServer).requests('initialize')[0];
    expect(init?.params?.capabilities).toMatchObject({
      roots: { listChanged: true },
      elicitation: { form: {}, url: {} },
    });
  });
});

describe('io.artec.clat host services', () => {
  it('are not negotiated (-32601) unless the server advertised the extension', async () => {
    const host = fakeHost();
    const { server } = await setup('2025-11-25', host, { tools: {} });
    const get = await server.request('io.artec.clat/context/get', {});
    expect(get).toMatchObject({ error: { code: -32601 } });
    expect((get as { error: { message: string } }).error.message).toContain('not negotiated');
    expect(await server.request('io.artec.clat/tools/call', { name: 'read_file' })).toMatchObject({
      error: { code: -32601 },
    });
    expect(host.calls).toHaveLength(0);
  });

  it('serve context/get and tools/call when advertised', async () => {
    const host = fakeHost();
    const { server } = await setup('modern', host);
    expect(await server.request('io.artec.clat/context/get', {})).toMatchObject({
      result: SNAPSHOT,
    });
    const call = await server.request('io.artec.clat/tools/call', {
      name: 'read_file',
      arguments: { path: 'a.txt' },
    });
    expect(call).toMatchObject({ result: { output: { ok: true, name: 'read_file' } } });
    expect(host.calls.at(-1)).toMatchObject({
      method: 'callTool',
      caller: { kind: 'mcp', id: 'srv' },
      args: ['read_file', { path: 'a.txt' }],
    });
    const bad = await server.request('io.artec.clat/tools/call', { name: 42 });
    expect(bad).toMatchObject({ error: { code: -32602 } });
  });

  it('pushes context/changed only to servers that advertised it, with null at run end', async () => {
    const host = fakeHost();
    const plain = await setup('2025-11-25', host, { tools: {} });
    expect(host.listeners).toHaveLength(0);
    const opted = await setup('2025-11-25', host);
    expect(host.listeners).toHaveLength(1);
    host.push(SNAPSHOT);
    host.push(null);
    await settle();
    const pushes = opted.server.requests('io.artec.clat/context/changed');
    expect(pushes.map((p) => p.params)).toEqual([{ context: SNAPSHOT }, { context: null }]);
    expect(plain.server.requests('io.artec.clat/context/changed')).toHaveLength(0);
    await opted.client.close();
    expect(host.listeners).toHaveLength(0);
  });

  it('pushes no context to HTTP servers, which poll context/get instead', async () => {
    const host = fakeHost();
    const factory = new ScriptedFactory(legacyServer('2025-11-25', { capabilities: HOST_CAPS }));
    factory.kind = 'http';
    clients.push(await McpClient.connect({ name: 'web', factory, hostServices: host }));
    expect(host.listeners).toHaveLength(0);
    const server = factory.servers.at(-1) as ScriptedServer;
    expect(await server.request('io.artec.clat/context/get', {})).toMatchObject({
      result: SNAPSHOT,
    });
  });
});

describe('tools/call deadline extension through host requests', () => {
  it('keeps a tools/call alive past 120 s while its sampling is pending, and times out without it', async () => {
    vi.useFakeTimers();
    const host = fakeHost();
    let releaseSampling!: () => void;
    host.sampling = () =>
      new Promise((resolve) => {
        releaseSampling = () => resolve({ text: 'late', model: 'm1', stopReason: 'endTurn' });
      });
    const connecting = setup('2025-11-25', host);
    await vi.advanceTimersByTimeAsync(0);
    const { client, server } = await connecting;
    const tool = await activeToolCall(client, server);
    const sampling = server.request('sampling/createMessage', SAMPLING);
    await settle();
    expect(client.pendingHostRequests).toBe(1);
    await vi.advanceTimersByTimeAsync(LIMITS.toolCallMs + 5 * LIMITS.toolCallExtensionStepMs);
    releaseSampling();
    expect(await sampling).toMatchObject({ result: { content: { text: 'late' } } });
    const result = await tool.finish({ content: [{ type: 'text', text: 'done' }] });
    expect(result).toMatchObject({ content: [{ text: 'done' }] });

    const bare = await activeToolCall(client, server);
    await vi.advanceTimersByTimeAsync(LIMITS.toolCallMs);
    expect(await bare.call).toMatchObject({ code: McpErrorCode.MCP_TIMEOUT });
  });
});

describe('cancelling a tools/call', () => {
  it('ends the call at once and stops host work served for it, answering the server with an error', async () => {
    const host = fakeHost();
    let samplingSignal: AbortSignal | undefined;
    host.sampling = (signal) => {
      samplingSignal = signal;
      return new Promise((_resolve, reject) => {
        signal.addEventListener('abort', () => reject(new Error('aborted')), { once: true });
      });
    };
    const { client, server } = await setup('2025-11-25', host);
    const tool = await activeToolCall(client, server);
    const sampling = server.request('sampling/createMessage', SAMPLING);
    await settle();
    expect(client.pendingHostRequests).toBe(1);
    tool.controller.abort();
    expect(await tool.call).toMatchObject({ code: McpErrorCode.MCP_CANCELLED });
    expect(samplingSignal?.aborted).toBe(true);
    const answer = await sampling;
    expect(answer).toMatchObject({ error: { code: -32000 } });
    expect((answer as { error: { message: string } }).error.message).toContain('tools/call work');
    expect(server.requests('notifications/cancelled')).toHaveLength(1);
    expect(client.pendingHostRequests).toBe(0);
  });
});

describe('with the real PluginHostBridge', () => {
  function bridgeSetup() {
    const registry = new ToolRegistry();
    const events = new RunEventStream();
    const pipeline = new ToolPipeline({ registry, events });
    const scope = createGlobalScope('test');
    registry.register(
      {
        definition: {
          name: 'read_file',
          description: 'native read_file',
          inputSchema: { type: 'object' },
          effect: 'read',
          source: { kind: 'native', id: '' },
        },
        async invoke(args) {
          return { content: `contents of ${String(args.path)}`, structured: { path: args.path } };
        },
      },
      scope,
    );
    const bridge = new PluginHostBridge({ projectRoot: '/work/project', pipeline });
    return { bridge, scope };
  }

  it('refuses host calls outside a run and serves them inside one', async () => {
    const { bridge } = bridgeSetup();
    const { client, server } = await setup('modern', bridge);
    const idle = await server.request('io.artec.clat/context/get', {});
    expect(idle).toMatchObject({ error: { code: -32000, data: { code: 'HOST_NO_ACTIVE_RUN' } } });

    const asker = new ScriptedAsker('Green', '3');
    const model: ModelProvider = {
      name: 'test',
      model: 'echo-1',
      async complete(request) {
        return {
          text: `echo: ${request.messages.at(-1)?.text}`,
          model: 'echo-1',
          stopReason: 'endTurn',
          usage: { inputTokens: 3, outputTokens: 2 },
        };
      },
    };
    const run = bridge.beginRun({
      runId: 'r1',
      mode: 'full-access',
      signal: new AbortController().signal,
      asker,
      model,
      approver: new ScriptedApprover(),
    });
    await settle();
    const pushed = server.requests('io.artec.clat/context/changed');
    expect(pushed.at(-1)?.params).toMatchObject({
      context: { project: { root: '/work/project' }, run: { runId: 'r1' } },
    });

    const context = await server.request('io.artec.clat/context/get', {});
    expect(context).toMatchObject({ result: { project: { root: '/work/project' } } });
    const read = await server.request('io.artec.clat/tools/call', {
      name: 'read_file',
      arguments: { path: 'a.txt' },
    });
    expect(read).toMatchObject({ result: { output: { path: 'a.txt' } } });
    const forbidden = await server.request('io.artec.clat/tools/call', { name: 'mcp_x_y' });
    expect(forbidden).toMatchObject({
      error: { code: -32602, data: { code: 'HOST_TOOL_NOT_ALLOWED' } },
    });
    const elicited = await server.request('elicitation/create', {
      message: 'Pick',
      requestedSchema: FORM.requestedSchema,
    });
    expect(elicited).toMatchObject({
      result: { action: 'accept', content: { color: 'g', count: 3 } },
    });

    const tool = await activeToolCall(client, server);
    const sampled = await server.request('sampling/createMessage', SAMPLING);
    expect(sampled).toMatchObject({ result: { content: { text: 'echo: summarize' } } });
    expect(run.usage().requests).toBe(1);
    await tool.finish({ content: [] });

    run.end();
    await settle();
    expect(server.requests('io.artec.clat/context/changed').at(-1)?.params).toEqual({
      context: null,
    });
  });
});

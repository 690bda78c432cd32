import { afterEach, describe, expect, it } from 'vitest';
import { McpClient } from './client.js';
import { isMcpError, McpErrorCode } from './errors.js';
import { MCP_LIMITS } from './limits.js';
import { fakeHost } from './test-support/fake-host.js';
import {
  complete,
  modernServer,
  type Reply,
  ScriptedFactory,
  type ScriptedServer,
} from './test-support/scripted-server.js';
import type { JsonRpcRequest } from './transport.js';

const clients: McpClient[] = [];

afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close()));
});

async function connect(
  factory: ScriptedFactory,
  extra: Partial<Parameters<typeof McpClient.connect>[0]> = {},
): Promise<McpClient> {
  const client = await McpClient.connect({ name: 'srv', factory, ...extra });
  clients.push(client);
  return client;
}

/** A state that JSON would happily re-escape differently: it must come back as the same string. */
const STATE = 'opaque-é-"quoted"-\u2028-\\n-🙂';

function calls(server: ScriptedServer): JsonRpcRequest[] {
  return server.requests('tools/call');
}

/**
 * A modern server whose `method` answers input_required with `inputRequests` (and
 * `requestState`, when given) until a request carries inputResponses, then `answer`.
 */
function askThenAnswer(
  method: string,
  inputRequests: Record<string, unknown>,
  answer: (request: JsonRpcRequest) => Reply,
  requestState?: string,
): ScriptedFactory {
  const ask = {
    result: {
      resultType: 'input_required',
      inputRequests,
      ...(requestState === undefined ? {} : { requestState }),
    },
  };
  return new ScriptedFactory((server) => {
    modernServer()(server);
    server.on(method, (request) =>
      request.params?.inputResponses === undefined ? ask : answer(request),
    );
  });
}

describe('input_required rounds', () => {
  it('serves elicitation, sampling and roots, echoing requestState under a fresh id', async () => {
    const factory = new ScriptedFactory((server) => {
      modernServer()(server);
      server.on('tools/call', (request) => {
        const params = request.params ?? {};
        if (params.requestState === undefined) {
          return {
            result: {
              resultType: 'input_required',
              inputRequests: {
                ask: {
                  method: 'elicitation/create',
                  params: {
                    message: 'Deploy?',
                    requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } } },
                  },
                },
                sample: {
                  method: 'sampling/createMessage',
                  params: {
                    messages: [{ role: 'user', content: { type: 'text', text: 'hi' } }],
                    maxTokens: 10,
                  },
                },
              },
              requestState: STATE,
            },
          };
        }
        if (params.requestState === STATE) {
          return {
            result: {
              resultType: 'input_required',
              inputRequests: { where: { method: 'roots/list' } },
              requestState: 'second',
            },
          };
        }
        return complete({ content: [{ type: 'text', text: 'done' }] });
      });
    });
    const host = fakeHost();
    host.elicitation = async () => ({
      tag: 'accepted',
      val: [['ok', { tag: 'boolean', val: true }]],
    });
    const client = await connect(factory, { hostServices: host, projectRoot: '/work/my project' });
    const result = await client.callTool('deploy', { target: 'prod' });
    expect(result.content).toEqual([{ type: 'text', text: 'done' }]);
    const server = factory.servers[0] as ScriptedServer;
    const [first, second, third] = calls(server);
    expect(calls(server)).toHaveLength(3);
    expect(new Set([first?.id, second?.id, third?.id]).size).toBe(3);
    expect(first?.params).not.toHaveProperty('requestState');
    expect(first?.params).not.toHaveProperty('inputResponses');
    expect(second?.params).toMatchObject({
      name: 'deploy',
      arguments: { target: 'prod' },
      requestState: STATE,
      inputResponses: {
        ask: { action: 'accept', content: { ok: true } },
        sample: { role: 'assistant', content: { type: 'text', text: 'answer' }, model: 'm1' },
      },
    });
    // Each retry carries the modern envelope again and only this round's answers.
    expect(second?.params?._meta).toHaveProperty(['io.modelcontextprotocol/protocolVersion']);
    expect(third?.params).toMatchObject({
      requestState: 'second',
      inputResponses: {
        where: { roots: [{ uri: 'file:///work/my%20project', name: 'my project' }] },
      },
    });
    expect(Object.keys(third?.params?.inputResponses as object)).toEqual(['where']);
    expect(client.rootsRequests).toBe(1);
    expect(host.calls.map((c) => c.method)).toEqual(['elicit', 'createMessage']);
  });

  it('retries a requestState-only round without inventing inputResponses', async () => {
    const factory = new ScriptedFactory((server) => {
      modernServer()(server);
      server.on('tools/call', (request) =>
        request.params?.requestState === 'busy'
          ? complete({ content: [] })
          : { result: { resultType: 'input_required', requestState: 'busy' } },
      );
    });
    const client = await connect(factory);
    await client.callTool('t');
    const [, retry] = calls(factory.servers[0] as ScriptedServer);
    expect(retry?.params).toMatchObject({ requestState: 'busy' });
    expect(retry?.params).not.toHaveProperty('inputResponses');
  });

  it('never sends requestState the server did not send', async () => {
    const factory = askThenAnswer('tools/call', { r: { method: 'roots/list' } }, () =>
      complete({ content: [] }),
    );
    const client = await connect(factory, { projectRoot: '/p' });
    await client.callTool('t');
    const [, retry] = calls(factory.servers[0] as ScriptedServer);
    expect(retry?.params).not.toHaveProperty('requestState');
    expect(retry?.params).toMatchObject({
      inputResponses: { r: { roots: [{ uri: 'file:///p' }] } },
    });
  });

  it(`stops after ${MCP_LIMITS.inputRounds} rounds with a clear error`, async () => {
    const factory = new ScriptedFactory((server) => {
      modernServer()(server);
      server.on('tools/call', {
        result: { resultType: 'input_required', inputRequests: { r: { method: 'roots/list' } } },
      });
    });
    const client = await connect(factory, { projectRoot: '/p' });
    const error = await client.callTool('loop').catch((e: unknown) => e);
    expect(isMcpError(error) && error.code).toBe(McpErrorCode.MCP_INPUT_ROUNDS_EXCEEDED);
    expect((error as Error).message).toBe(
      `MCP server "srv" still asked for input after ${MCP_LIMITS.inputRounds} rounds of tools/call loop; CLAT stopped retrying`,
    );
    expect(calls(factory.servers[0] as ScriptedServer)).toHaveLength(MCP_LIMITS.inputRounds + 1);
  });

  it('fails the call when the server asks for a capability CLAT did not declare', async () => {
    const factory = new ScriptedFactory((server) => {
      modernServer()(server);
      server.on('tools/call', {
        result: {
          resultType: 'input_required',
          inputRequests: { s: { method: 'sampling/createMessage', params: { messages: [] } } },
        },
      });
    });
    const client = await connect(factory);
    const error = await client.callTool('t').catch((e: unknown) => e);
    expect(isMcpError(error) && error.code).toBe(McpErrorCode.MCP_INPUT_FAILED);
    expect((error as Error).message).toContain('did not declare');
    expect(calls(factory.servers[0] as ScriptedServer)).toHaveLength(1);
  });

  it('rejects malformed input_required results', async () => {
    let reply: Record<string, unknown> = {};
    const factory = new ScriptedFactory((server) => {
      modernServer()(server);
      server.on('tools/call', () => ({ result: { resultType: 'input_required', ...reply } }));
    });
    const client = await connect(factory);
    for (const [shape, text] of [
      [{}, 'neither inputRequests nor requestState'],
      [{ inputRequests: { x: { method: 'tools/list' } } }, 'only elicitation/create'],
      [{ requestState: 7 }, 'requestState is not a string'],
    ] as const) {
      reply = shape;
      const error = await client.callTool('t').catch((e: unknown) => e);
      expect(isMcpError(error) && error.code).toBe(McpErrorCode.MCP_PROTOCOL_VIOLATION);
      expect((error as Error).message).toContain(text);
    }
  });

  it('keeps one deadline across rounds that input work extends', async () => {
    const ask = {
      method: 'elicitation/create',
      params: { message: 'ok?', requestedSchema: { type: 'object', properties: {} } },
    };
    const factory = askThenAnswer('tools/call', { q: ask }, () => ({ silent: true }));
    const host = fakeHost();
    // The person takes longer than the whole base deadline to answer.
    host.elicitation = () =>
      new Promise((resolve) => setTimeout(() => resolve({ tag: 'accepted', val: [] }), 300));
    const client = await connect(factory, {
      hostServices: host,
      timeouts: { toolCallMs: 200, toolCallExtensionStepMs: 150, toolCallExtensionTotalMs: 450 },
    });
    const started = Date.now();
    const error = await client.callTool('t').catch((e: unknown) => e);
    expect(isMcpError(error) && error.code).toBe(McpErrorCode.MCP_TIMEOUT);
    // Answered after the base deadline (so it was extended), then the silent retry timed out
    // within the extension total. Steps are timer-driven, so a loaded machine may use one more.
    expect(calls(factory.servers[0] as ScriptedServer)).toHaveLength(2);
    const total = Number(/within (\d+) ms/.exec((error as Error).message)?.[1]);
    expect(total).toBeGreaterThan(200);
    expect(total).toBeLessThanOrEqual(200 + 450);
    expect((total - 200) % 150).toBe(0);
    expect(Date.now() - started).toBeGreaterThanOrEqual(total - 5);
  });

  it('ends at once on cancellation while serving input', async () => {
    const factory = new ScriptedFactory((server) => {
      modernServer()(server);
      server.on('tools/call', {
        result: {
          resultType: 'input_required',
          inputRequests: {
            q: {
              method: 'elicitation/create',
              params: { message: 'ok?', requestedSchema: { type: 'object', properties: {} } },
            },
          },
        },
      });
    });
    const host = fakeHost();
    host.elicitation = (signal) =>
      new Promise((_, reject) => signal.addEventListener('abort', () => reject(signal.reason)));
    const client = await connect(factory, { hostServices: host });
    const controller = new AbortController();
    const pending = client.callTool('t', {}, { signal: controller.signal });
    await new Promise((r) => setTimeout(r, 20));
    controller.abort('user pressed Esc');
    const error = await pending.catch((e: unknown) => e);
    expect(isMcpError(error) && error.code).toBe(McpErrorCode.MCP_CANCELLED);
    expect(calls(factory.servers[0] as ScriptedServer)).toHaveLength(1);
  });
});

describe('input_required outside tools/call', () => {
  it('runs rounds for prompts/get too', async () => {
    const factory = askThenAnswer(
      'prompts/get',
      { r: { method: 'roots/list' } },
      (request) => complete({ messages: [], description: String(request.params?.requestState) }),
      'p1',
    );
    const client = await connect(factory, { projectRoot: '/p' });
    const result = await client.getPrompt('greet', { who: 'x' });
    expect(result.description).toBe('p1');
    const [, retry] = (factory.servers[0] as ScriptedServer).requests('prompts/get');
    expect(retry?.params).toMatchObject({ name: 'greet', arguments: { who: 'x' } });
  });
});

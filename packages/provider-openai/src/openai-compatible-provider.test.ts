import { isKernelError, KernelErrorCode } from '@clat/kernel';
import { afterEach, describe, expect, it } from 'vitest';
import { ProviderErrorCode } from './errors.js';
import {
  OpenAiCompatibleProvider,
  type OpenAiCompatibleProviderOptions,
} from './openai-compatible-provider.js';
import { type ChatServer, chunk, type Reply, startChatServer } from './testing/index.js';

const KEY = 'sk-test-SENTINEL-0123456789abcdef';
let server: ChatServer | undefined;

afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function provider(replies: Reply[], options: Partial<OpenAiCompatibleProviderOptions> = {}) {
  server = await startChatServer(replies);
  return new OpenAiCompatibleProvider({
    baseUrl: server.url,
    model: 'fake-1',
    apiKey: KEY,
    vendor: 'glm',
    retryBaseMs: 1,
    retryMaxDelayMs: 50,
    ...options,
  });
}

const signal = () => new AbortController().signal;

function completion(
  message: Record<string, unknown>,
  finish = 'stop',
  usage = { prompt_tokens: 11, completion_tokens: 7 },
) {
  return {
    json: {
      id: 'x',
      model: 'fake-1-0613',
      choices: [{ index: 0, message, finish_reason: finish }],
      usage,
    },
  };
}

describe('OpenAiCompatibleProvider.chat', () => {
  it('sends the OpenAI wire shape with the key as a bearer header and reads tool calls and usage', async () => {
    const p = await provider([
      completion(
        {
          role: 'assistant',
          content: null,
          tool_calls: [
            {
              id: 'call_a',
              type: 'function',
              function: { name: 'read_file', arguments: '{"path":"a.txt"}' },
            },
          ],
        },
        'tool_calls',
      ),
    ]);
    const result = await p.chat(
      {
        messages: [
          { role: 'system', content: 'be brief' },
          { role: 'user', content: 'read a.txt' },
          { role: 'assistant', content: '', toolCalls: [{ id: 'c0', name: 'x', arguments: '{}' }] },
          { role: 'tool', toolCallId: 'c0', content: 'ok' },
        ],
        tools: [{ name: 'read_file', description: 'Read a file', parameters: { type: 'object' } }],
        maxTokens: 64,
      },
      signal(),
    );
    expect(result).toEqual({
      text: '',
      toolCalls: [{ id: 'call_a', name: 'read_file', arguments: '{"path":"a.txt"}' }],
      finishReason: 'tool_calls',
      model: 'fake-1-0613',
      usage: { inputTokens: 11, outputTokens: 7 },
      attempts: 1,
    });
    const request = server?.requests[0];
    expect(request?.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(request?.body).toMatchObject({
      model: 'fake-1',
      max_tokens: 64,
      tools: [
        {
          type: 'function',
          function: {
            name: 'read_file',
            description: 'Read a file',
            parameters: { type: 'object' },
          },
        },
      ],
      messages: [
        { role: 'system', content: 'be brief' },
        { role: 'user', content: 'read a.txt' },
        {
          role: 'assistant',
          content: '',
          tool_calls: [{ id: 'c0', type: 'function', function: { name: 'x', arguments: '{}' } }],
        },
        { role: 'tool', tool_call_id: 'c0', content: 'ok' },
      ],
    });
    expect(request?.body.stream).toBeUndefined();
  });

  it('assembles streamed text and tool-call fragments and reports usage from the final chunk', async () => {
    const p = await provider(
      [
        {
          sse: [
            chunk({ role: 'assistant', content: 'Hel' }),
            { delayMs: 5 },
            chunk({ content: 'lo' }),
            chunk({
              tool_calls: [
                {
                  index: 0,
                  id: 'call_1',
                  type: 'function',
                  function: { name: 'sea', arguments: '{"q"' },
                },
              ],
            }),
            chunk({ tool_calls: [{ index: 0, function: { name: 'rch', arguments: ':"x"}' } }] }),
            chunk({}, 'tool_calls'),
            `data: ${JSON.stringify({ choices: [], usage: { prompt_tokens: 3, completion_tokens: 4 } })}\n\n`,
            'data: [DONE]\n\n',
          ],
        },
      ],
      { stream: true },
    );
    const deltas: string[] = [];
    const result = await p.chat(
      { messages: [{ role: 'user', content: 'hi' }], onText: (d) => deltas.push(d) },
      signal(),
    );
    expect(deltas).toEqual(['Hel', 'lo']);
    expect(result.text).toBe('Hello');
    expect(result.toolCalls).toEqual([{ id: 'call_1', name: 'search', arguments: '{"q":"x"}' }]);
    expect(result.finishReason).toBe('tool_calls');
    expect(result.usage).toEqual({ inputTokens: 3, outputTokens: 4 });
    expect(server?.requests[0]?.body).toMatchObject({
      stream: true,
      stream_options: { include_usage: true },
    });
  });

  it('retries 429 and 503 with backoff, honouring Retry-After, then succeeds', async () => {
    const notices: number[] = [];
    const p = await provider(
      [
        { status: 429, json: { error: { message: 'slow down' } }, headers: { 'retry-after': '0' } },
        { status: 503, json: { error: { message: 'overloaded' } } },
        completion({ role: 'assistant', content: 'done' }),
      ],
      { onRetry: (notice) => notices.push(notice.attempt) },
    );
    const result = await p.chat({ messages: [{ role: 'user', content: 'x' }] }, signal());
    expect(result.text).toBe('done');
    expect(result.attempts).toBe(3);
    expect(notices).toEqual([1, 2]);
    expect(server?.requests).toHaveLength(3);
  });

  it('gives up after maxRetries and names the status', async () => {
    const p = await provider(
      [
        { status: 500, json: { error: { message: 'boom' } } },
        { status: 500, json: { error: { message: 'boom' } } },
      ],
      { maxRetries: 1 },
    );
    await expect(
      p.chat({ messages: [{ role: 'user', content: 'x' }] }, signal()),
    ).rejects.toMatchObject({
      code: ProviderErrorCode.PROVIDER_HTTP_ERROR,
      status: 500,
      message: 'openai-compatible (glm) answered HTTP 500: boom',
    });
    expect(server?.requests).toHaveLength(2);
  });

  it('does not retry auth failures and never echoes the key the server reflected', async () => {
    const p = await provider([{ status: 401, json: { error: { message: `invalid key ${KEY}` } } }]);
    const error = await p
      .chat({ messages: [{ role: 'user', content: 'x' }] }, signal())
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ code: ProviderErrorCode.PROVIDER_AUTH_FAILED, status: 401 });
    expect(String((error as Error).message)).not.toContain(KEY);
    expect(String((error as Error).message)).toContain('[REDACTED]');
    expect(server?.requests).toHaveLength(1);
  });

  it('times out a hanging attempt, retries, and reports PROVIDER_TIMEOUT', async () => {
    // A deadline long enough that each attempt reaches the server even on a loaded machine.
    const p = await provider([{ hang: true }, { hang: true }], { timeoutMs: 1000, maxRetries: 1 });
    await expect(
      p.chat({ messages: [{ role: 'user', content: 'x' }] }, signal()),
    ).rejects.toMatchObject({
      code: ProviderErrorCode.PROVIDER_TIMEOUT,
    });
    expect(server?.requests).toHaveLength(2);
  });

  it('cancels an in-flight request with the kernel CANCELLED error', async () => {
    const p = await provider([{ hang: true }]);
    const controller = new AbortController();
    const pending = p.chat({ messages: [{ role: 'user', content: 'x' }] }, controller.signal);
    await new Promise((resolve) => setTimeout(resolve, 50));
    controller.abort('user pressed Esc');
    const error = await pending.catch((e: unknown) => e);
    expect(isKernelError(error) && error.code).toBe(KernelErrorCode.CANCELLED);
  });

  it('retries a dropped connection as a network error', async () => {
    const p = await provider([{ destroy: true }, completion({ role: 'assistant', content: 'ok' })]);
    const result = await p.chat({ messages: [{ role: 'user', content: 'x' }] }, signal());
    expect(result).toMatchObject({ text: 'ok', attempts: 2 });
  });

  it('does not retry a stream that failed after text was shown', async () => {
    const p = await provider(
      [
        { sse: [chunk({ content: 'partial' }), 'data: {"error":{"message":"upstream died"}}\n\n'] },
        completion({ role: 'assistant', content: 'again' }),
      ],
      { stream: true },
    );
    await expect(
      p.chat({ messages: [{ role: 'user', content: 'x' }] }, signal()),
    ).rejects.toMatchObject({
      code: ProviderErrorCode.PROVIDER_HTTP_ERROR,
      message: 'openai-compatible (glm) reported an error mid-stream: upstream died',
    });
    expect(server?.requests).toHaveLength(1);
  });

  it('rejects a body that is not a chat completion', async () => {
    const p = await provider([{ json: { hello: 'world' } }]);
    await expect(
      p.chat({ messages: [{ role: 'user', content: 'x' }] }, signal()),
    ).rejects.toMatchObject({
      code: ProviderErrorCode.PROVIDER_BAD_RESPONSE,
    });
  });
});

describe('OpenAiCompatibleProvider.complete (kernel ModelProvider port)', () => {
  it('maps system/messages/maxTokens and the finish reason', async () => {
    const p = await provider([completion({ role: 'assistant', content: 'summary' }, 'length')]);
    const response = await p.complete(
      {
        system: 'sys',
        messages: [{ role: 'user', text: 'sum up' }],
        maxTokens: 32,
        temperature: 0.2,
      },
      signal(),
    );
    expect(response).toEqual({
      text: 'summary',
      model: 'fake-1-0613',
      stopReason: 'maxTokens',
      usage: { inputTokens: 11, outputTokens: 7 },
    });
    expect(server?.requests[0]?.body).toMatchObject({
      messages: [
        { role: 'system', content: 'sys' },
        { role: 'user', content: 'sum up' },
      ],
      max_tokens: 32,
      temperature: 0.2,
    });
    expect(server?.requests[0]?.body.tools).toBeUndefined();
  });

  it('keeps the key out of inspection and JSON', async () => {
    const p = await provider([]);
    const { inspect } = await import('node:util');
    expect(inspect(p, { depth: 5 })).not.toContain(KEY);
    expect(JSON.stringify(p)).not.toContain(KEY);
  });
});

describe('OpenAiCompatibleProvider endpoint in errors', () => {
  it('names an unreachable endpoint by origin and path only, with a token segment hidden', async () => {
    const p = new OpenAiCompatibleProvider({
      baseUrl: 'http://127.0.0.1:9/gw/Tk9yZWFsVG9rZW4wMTIzNDU2Nzg5/v1',
      model: 'fake-1',
      maxRetries: 0,
      fetch: async () => {
        throw new TypeError('fetch failed');
      },
    });
    const error = await p.chat({ messages: [{ role: 'user', content: 'hi' }] }, signal()).then(
      () => undefined,
      (caught: Error) => caught,
    );
    expect(error).toMatchObject({ code: ProviderErrorCode.PROVIDER_NETWORK_ERROR });
    expect(error?.message).toBe(
      'cannot reach http://127.0.0.1:9/gw/…/v1/chat/completions: fetch failed',
    );
  });

  it('refuses a baseUrl with credentials without quoting them', () => {
    expect(
      () =>
        new OpenAiCompatibleProvider({
          baseUrl: 'https://me:pw-0123456789@llm.example/v1',
          model: 'fake-1',
        }),
    ).toThrow(
      'baseUrl https://llm.example/v1 must not carry credentials (user:password@); pass the key as apiKey',
    );
    expect(
      () => new OpenAiCompatibleProvider({ baseUrl: 'ftp://pw-0123456789@x', model: 'm' }),
    ).toThrow(/^baseUrl must be an http or https URL such as https:\/\/api\.openai\.com\/v1$/);
  });
});

import { createHost, KernelErrorCode, type Tool } from '@clat/kernel';
import { type ChatMessage, OpenAiCompatibleProvider } from '@clat/provider-openai';
import { type ChatServer, completion, startChatServer } from '@clat/provider-openai/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { runAgentTurn } from './agent-loop.js';

/** A read tool that returns at once, and one that only ends when its call is cancelled. */
function tool(name: string, invoke: Tool['invoke']): Tool {
  return {
    definition: {
      name,
      description: name,
      inputSchema: { type: 'object' },
      effect: 'read',
      source: { kind: 'native', id: '' },
    },
    invoke,
  };
}

const quick = tool('quick', async () => ({ content: 'quick done' }));
let started: () => void = () => {};
const waits = tool(
  'waits',
  (_args, ctx) =>
    new Promise((_resolve, reject) => {
      started();
      ctx.signal.addEventListener('abort', () => reject(new Error('aborted')), { once: true });
    }),
);

let server: ChatServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe('runAgentTurn', () => {
  it('a turn cancelled in a tool call leaves a history the API accepts: every call of the step gets its result', async () => {
    server = await startChatServer([
      completion(
        {
          toolCalls: [
            { name: 'quick', arguments: {} },
            { name: 'waits', arguments: {} },
            { name: 'quick', arguments: {} },
          ],
        },
        1,
      ),
      completion({ text: 'fine after the cancel' }, 2),
    ]);
    const provider = new OpenAiCompatibleProvider({
      baseUrl: server.url,
      model: 'fake-model',
      maxRetries: 0,
    });
    const host = createHost({
      projectRoot: '/project',
      connectors: [],
      entries: [],
      nativeTools: [quick, waits],
    });
    host.start();
    const history: ChatMessage[] = [];
    const first = await host.beginRun({ mode: 'read-only' });
    const running = new Promise<void>((resolve) => {
      started = resolve;
    });
    const turn = runAgentTurn({ provider, session: host, run: first, history, prompt: 'go' });
    await running;
    first.token.cancel('cancelled by Esc');
    await expect(turn).rejects.toMatchObject({ code: KernelErrorCode.CANCELLED });
    await first.end();
    expect(history.map((message) => message.role)).toEqual([
      'user',
      'assistant',
      'tool',
      'tool',
      'tool',
    ]);
    expect(history[2]).toMatchObject({ toolCallId: 'call_1_0', content: 'quick done' });
    expect(history[3]).toMatchObject({ toolCallId: 'call_1_1' });
    expect(history[3]?.content).toMatch(/^error: not completed: .*cancelled by Esc/);
    expect(history[4]).toMatchObject({ toolCallId: 'call_1_2' });
    expect(history[4]?.content).toMatch(/^error: not completed: .*cancelled by Esc/);

    // The next prompt of the session goes through: the scripted server refuses a history with a
    // tool call left without its result, as the real API does.
    const second = await host.beginRun({ mode: 'read-only' });
    const result = await runAgentTurn({
      provider,
      session: host,
      run: second,
      history,
      prompt: 'and now?',
    });
    await second.end();
    expect(result.text).toBe('fine after the cancel');
    expect(server.requests).toHaveLength(2);
    await host.close();
  });
});

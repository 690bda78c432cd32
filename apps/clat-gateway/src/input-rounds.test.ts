import type { ServerContext } from '@modelcontextprotocol/server';
import { afterEach, describe, expect, it } from 'vitest';
import type { AskClient } from './client-asks.js';
import { InputRounds } from './input-rounds.js';

/** The part of a request context InputRounds reads: state, responses, the round's signal. */
function round(
  state?: string,
  responses?: Record<string, unknown>,
  signal: AbortSignal = new AbortController().signal,
): ServerContext {
  return {
    mcpReq: {
      requestState: () => state,
      inputResponses: responses,
      signal,
    },
  } as unknown as ServerContext;
}

const ELICIT = {
  method: 'elicitation/create',
  params: { mode: 'form', message: 'ok?', requestedSchema: { type: 'object', properties: {} } },
} as const;

interface InputRequiredShape {
  resultType: 'input_required';
  inputRequests: Record<string, unknown>;
  requestState: string;
}

function asInput(result: unknown): InputRequiredShape {
  expect(result).toMatchObject({ resultType: 'input_required' });
  return result as InputRequiredShape;
}

const shutdowns: AbortController[] = [];
afterEach(() => {
  for (const shutdown of shutdowns.splice(0)) shutdown.abort(new Error('test over'));
});

function rounds(limits = { retryWaitMs: 60_000, maxSuspended: 16 }): InputRounds {
  const shutdown = new AbortController();
  shutdowns.push(shutdown);
  return new InputRounds(shutdown.signal, limits);
}

/** A call that asks once and returns the answer as text. */
const askOnce = async (ask: AskClient, signal: AbortSignal) => {
  const answer = (await ask(ELICIT, signal)) as { action: string };
  return { content: [{ type: 'text' as const, text: `answered ${answer.action}` }] };
};

describe('InputRounds', () => {
  it('suspends the call at its first input and resumes it with the retried answer', async () => {
    const store = rounds();
    const first = asInput(await store.serve(round(), 'tool', { a: 1 }, 'call-1', askOnce));
    const [key] = Object.keys(first.inputRequests);
    expect(first.inputRequests[key as string]).toEqual(ELICIT);
    expect(store.callIdOf(round(first.requestState))).toBe('call-1');
    const done = await store.serve(
      round(first.requestState, { [key as string]: { action: 'accept' } }),
      'tool',
      { a: 1 },
      'ignored',
      askOnce,
    );
    expect(done).toEqual({ content: [{ type: 'text', text: 'answered accept' }] });
    expect(store.size).toBe(0);
  });

  it('answers a call that needs no input at once, without a round', async () => {
    const store = rounds();
    const done = await store.serve(round(), 'tool', {}, 'call-1', async () => ({
      content: [{ type: 'text', text: 'plain' }],
    }));
    expect(done).toEqual({ content: [{ type: 'text', text: 'plain' }] });
    expect(store.size).toBe(0);
  });

  it('refuses a retry that names another tool, other arguments or an unknown state', async () => {
    const store = rounds();
    const first = asInput(await store.serve(round(), 'tool', { a: 1 }, 'call-1', askOnce));
    for (const [tool, args, state] of [
      ['other', { a: 1 }, first.requestState],
      ['tool', { a: 2 }, first.requestState],
      ['tool', { a: 1 }, 'forged-state'],
    ] as const) {
      const refused = await store.serve(round(state, {}), tool, args, 'x', askOnce);
      expect(refused).toMatchObject({
        isError: true,
        content: [{ text: expect.stringContaining('expired or belongs to another call') }],
      });
    }
    // The real call still waits for its own retry.
    expect(store.size).toBe(1);
  });

  it('fails the pending input when the retry does not answer it', async () => {
    const store = rounds();
    const first = asInput(await store.serve(round(), 'tool', {}, 'call-1', askOnce));
    const done = await store
      .serve(round(first.requestState, {}), 'tool', {}, 'x', async () => {
        throw new Error('not started twice');
      })
      .catch((error: Error) => error);
    expect(String((done as Error).message ?? '')).toContain('without answering');
  });

  it('cancels a suspended call whose client never retries', async () => {
    const store = rounds({ retryWaitMs: 50, maxSuspended: 16 });
    let seen: AbortSignal | undefined;
    await store.serve(round(), 'tool', {}, 'call-1', async (ask, signal) => {
      seen = signal;
      await ask(ELICIT, signal);
      return { content: [] };
    });
    await expect.poll(() => seen?.aborted).toBe(true);
    await expect.poll(() => store.size).toBe(0);
  });

  it('bounds the calls that may wait for input at once', async () => {
    const store = rounds({ retryWaitMs: 60_000, maxSuspended: 2 });
    await store.serve(round(), 'tool', { n: 1 }, 'call-1', askOnce);
    await store.serve(round(), 'tool', { n: 2 }, 'call-2', askOnce);
    const third = await store.serve(round(), 'tool', { n: 3 }, 'call-3', askOnce);
    expect(third).toMatchObject({
      isError: true,
      content: [{ text: expect.stringContaining('2 gateway calls already wait') }],
    });
  });

  it("cancels the call when the round's request is cancelled while it runs", async () => {
    const store = rounds();
    const cancel = new AbortController();
    let seen: AbortSignal | undefined;
    const served = store.serve(
      round(undefined, undefined, cancel.signal),
      'tool',
      {},
      'c',
      (_ask, signal) => {
        seen = signal;
        return new Promise((resolve) =>
          signal.addEventListener('abort', () =>
            resolve({ content: [{ type: 'text', text: 'stopped' }], isError: true }),
          ),
        );
      },
    );
    cancel.abort(new Error('client cancelled'));
    expect(await served).toMatchObject({ isError: true });
    expect(seen?.aborted).toBe(true);
  });
});

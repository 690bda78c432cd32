/**
 * While sampling or elicitation is pending on a connection, that connection's tools/call
 * deadline extends (per server); user cancellation still wins at once. Short deadlines are
 * configured so the test runs in seconds; outcomes are asserted, never durations.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { UserAnswer, UserQuestion } from '@clat/kernel';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type BridgeHarness, createBridgeHarness, fixtureServer } from './harness.js';

// Generous enough that a loaded machine still sends the host request well before the base deadline.
const BASE_MS = 1_000;
const timeouts = {
  toolCallMs: BASE_MS,
  toolCallExtensionStepMs: BASE_MS,
  toolCallExtensionTotalMs: 5 * BASE_MS,
};
const form = {
  message: 'Name?',
  requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
};

let h: BridgeHarness;

beforeAll(async () => {
  h = await createBridgeHarness([
    fixtureServer('slow-a', 'host-client-server.mjs', {}, timeouts),
    fixtureServer('slow-b', 'host-client-server.mjs', {}, timeouts),
  ]);
});
afterAll(async () => {
  await h?.close();
});

/** An asker that answers `text` after `ms`, or reports how its wait ended. */
function slowAsker(ms: number, text: string) {
  const seen: { aborted: boolean }[] = [];
  return {
    seen,
    async ask(_question: UserQuestion, signal: AbortSignal): Promise<UserAnswer> {
      const entry = { aborted: false };
      seen.push(entry);
      try {
        await sleep(ms, undefined, { signal });
        return { kind: 'answer', text };
      } catch {
        entry.aborted = true;
        return { kind: 'cancelled' };
      }
    },
  };
}

describe('tools/call deadline extension', () => {
  it('keeps a call alive past its base deadline while an elicitation is pending', async () => {
    const asker = slowAsker(3 * BASE_MS, 'Ada');
    const { run, context } = h.beginRun({ mode: 'full-access', asker });
    try {
      const out = await h.callJson(ELICIT('slow-a'), { params: form }, context);
      expect(out).toMatchObject({
        ok: true,
        result: { action: 'accept', content: { name: 'Ada' } },
      });
    } finally {
      run.end();
    }
  });

  it('counts per server: a slow call on another connection still times out', async () => {
    const asker = slowAsker(3 * BASE_MS, 'Ada');
    const { run, context } = h.beginRun({ mode: 'full-access', asker });
    try {
      const [extended, plain] = await Promise.allSettled([
        h.callJson(ELICIT('slow-a'), { params: form }, context),
        h.call('mcp_slow_b_sleep', { ms: 3 * BASE_MS }, context),
      ]);
      expect(extended).toMatchObject({ status: 'fulfilled', value: { ok: true } });
      expect(plain.status).toBe('rejected');
      expect(String((plain as PromiseRejectedResult).reason)).toContain(
        `did not answer tools/call sleep within ${BASE_MS} ms`,
      );
    } finally {
      run.end();
    }
  });

  it('stops extending at the total cap and ends the host work', async () => {
    const asker = slowAsker(60_000, 'never');
    const { run, context } = h.beginRun({ mode: 'full-access', asker });
    try {
      const outcome = await h.call(ELICIT('slow-a'), { params: form }, context).then(
        (result) => ({ ok: true, result }),
        (error: unknown) => ({ ok: false, error: String(error) }),
      );
      expect(outcome).toMatchObject({ ok: false });
      const capped = timeouts.toolCallMs + timeouts.toolCallExtensionTotalMs;
      expect((outcome as { error: string }).error).toContain(
        `did not answer tools/call elicit within ${capped} ms`,
      );
      for (let i = 0; i < 100 && asker.seen[0]?.aborted !== true; i++) await sleep(20);
      expect(asker.seen[0]?.aborted).toBe(true);
    } finally {
      run.end();
    }
  });

  it('lets user cancellation win at once while an elicitation is pending', async () => {
    const asker = slowAsker(60_000, 'never');
    const controller = new AbortController();
    const { run, context } = h.beginRun({ mode: 'full-access', asker, signal: controller.signal });
    try {
      const call = h.call(ELICIT('slow-a'), { params: form }, context);
      for (let i = 0; i < 200 && asker.seen.length === 0; i++) await sleep(10);
      expect(asker.seen).toHaveLength(1);
      controller.abort();
      await expect(call).rejects.toMatchObject({ code: 'CANCELLED' });
      for (let i = 0; i < 100 && asker.seen[0]?.aborted !== true; i++) await sleep(20);
      expect(asker.seen[0]?.aborted).toBe(true);
    } finally {
      run.end();
    }
  });
});

function ELICIT(server: string): string {
  return `mcp_${server.replace('-', '_')}_elicit`;
}

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { LIMITS } from '@clat/kernel';
import { pidAlive } from '@clat/process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixture, McpHarness } from './support.js';

// tools/call over one real stdio connection: responses routed by id in any order, cancellation
// that frees the caller at once and tells the server, and the result-size limit.

let harness: McpHarness;
let log: string;

beforeAll(async () => {
  harness = new McpHarness();
  log = join(await harness.home(), 'events.log');
  const { mounted } = await harness.mount('calls', {
    ...fixture('legacy.mjs'),
    env: { CLAT_FIXTURE_SPAWN_LOG: log },
  });
  expect(mounted.status().state, mounted.status().failure).toBe('connected');
});

afterAll(async () => {
  const pids = harness.spawnedPids();
  await harness.close();
  expect(harness.survivors()).toEqual([]);
  for (const pid of pids) expect(pidAlive(pid)).toBe(false);
});

async function failure(promise: Promise<{ content: string; isError?: boolean }>): Promise<string> {
  try {
    const result = await promise;
    expect(result.isError, `expected a failure, got ${result.content.slice(0, 80)}`).toBe(true);
    return result.content;
  } catch (error) {
    return (error as Error).message;
  }
}

describe('tools/call over stdio', () => {
  it('routes responses by id when they come back out of order', async () => {
    const order: string[] = [];
    const slow = harness.call('mcp_calls_sleep', { ms: 400 }).then((r) => order.push(r.content));
    const fast = harness.call('mcp_calls_add', { a: 1, b: 2 }).then((r) => order.push(r.content));
    await Promise.all([slow, fast]);
    expect(order).toEqual(['3', 'slept 400']);
  });

  it('cancellation ends the local wait and sends notifications/cancelled', async () => {
    const controller = new AbortController();
    const call = harness.call('mcp_calls_sleep', { ms: 30_000 }, controller.signal);
    setTimeout(() => controller.abort('user pressed Esc'), 100);
    const message = await failure(call);
    expect(message).toMatch(/cancel|abort|Esc/i);
    // The server saw the cancellation of exactly one request.
    let cancelled: string[] = [];
    for (let i = 0; i < 100 && cancelled.length === 0; i++) {
      cancelled = readFileSync(log, 'utf8')
        .split('\n')
        .filter((line) => line.includes(' cancelled '));
      if (cancelled.length === 0) await new Promise((r) => setTimeout(r, 20));
    }
    expect(cancelled).toHaveLength(1);
    expect((await harness.call('mcp_calls_add', { a: 2, b: 2 })).content).toBe('4');
  });

  it('rejects a result over the 1 MiB limit with a clear error and keeps the connection', async () => {
    const message = await failure(
      harness.call('mcp_calls_big', { bytes: LIMITS.toolResultBytes + 1024 }),
    );
    // The pipeline is the one owner of the limit: its sentence names the tool and the server.
    expect(message).toMatch(
      /^tool mcp_calls_big of mcp plugin "calls" returned \d+ bytes, over the tool result limit of 1048576 bytes$/,
    );
    const fits = await harness.call('mcp_calls_big', { bytes: LIMITS.toolResultBytes / 2 });
    expect(fits.content).toHaveLength(LIMITS.toolResultBytes / 2);
    expect(harness.mounted[0]?.status().state).toBe('connected');
  });
});

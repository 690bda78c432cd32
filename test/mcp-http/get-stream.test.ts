/**
 * The standalone GET stream of legacy Streamable HTTP sessions against real SDK v2 servers:
 * server requests that belong to no POST reach the same host handlers, a dropped stream resumes
 * with Last-Event-ID, a 405 means none, and the stream ends with the connection.
 */
import { ScriptedAsker } from '@clat/kernel/testing';
import { afterEach, describe, expect, it } from 'vitest';
import {
  type HttpFixture,
  startServerEverything,
  startSessionServer,
  stopAllHttpFixtures,
} from '../fixtures/http-servers/spawn.js';
import { HttpHarness } from './support.js';

interface Req {
  verb: string;
  method: string | null;
  session: boolean;
  lastEventId: string | null;
}

function requests(fixture: HttpFixture): Req[] {
  return fixture
    .stderr()
    .split('\n')
    .filter((line) => line.startsWith('REQ '))
    .map((line) => JSON.parse(line.slice(4)) as Req);
}

async function until(check: () => boolean, what: string, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

let harness: HttpHarness;
afterEach(async () => {
  await harness.close();
  await stopAllHttpFixtures();
});

describe('standalone GET stream (legacy Streamable HTTP)', () => {
  it('serves an elicitation sent on the GET stream while a tools/call is pending', async () => {
    const server = await startSessionServer('get');
    harness = new HttpHarness();
    const mounted = await harness.mount('sess', `${server.origin}/mcp`, { withHost: true });
    const status = mounted.status();
    expect(status.state, status.failure).toBe('connected');
    expect(status.era).toBe('legacy');
    await until(() => mounted.status().getStream === 'open', 'the GET stream to open');

    const asker = new ScriptedAsker('forty-two');
    const result = await harness.callInRun(
      'mcp_sess_ask_on_get',
      { question: 'What is the answer?' },
      asker,
    );
    expect(result.isError, result.content).not.toBe(true);
    expect(result.content).toBe('answer: forty-two');
    expect(asker.questions[0]?.question).toContain('What is the answer?');
    await server.waitFor('EVENT elicitation answered accept');

    // One GET, after initialized, carrying the session; the elicitation came on it.
    const seen = requests(server);
    const initialized = seen.findIndex((r) => r.method === 'notifications/initialized');
    const get = seen.findIndex((r) => r.verb === 'GET');
    expect(get).toBeGreaterThan(initialized);
    expect(seen[get]).toMatchObject({ session: true, lastEventId: null });
    expect(seen.filter((r) => r.verb === 'GET')).toHaveLength(1);

    // Teardown closes the stream with the session (DELETE), and the status says so.
    await mounted.close();
    expect(mounted.client?.getStreamState).toBe('closed');
    expect(requests(server).at(-1)?.verb).toBe('DELETE');
  });

  it('a pending GET-stream elicitation extends the tools/call deadline like a POST-stream one', async () => {
    const server = await startSessionServer('get');
    harness = new HttpHarness();
    const mounted = await harness.mount('slowask', `${server.origin}/mcp`, {
      withHost: true,
      timeouts: { toolCallMs: 800, toolCallExtensionStepMs: 800, toolCallExtensionTotalMs: 4000 },
    });
    expect(mounted.status().state, mounted.status().failure).toBe('connected');
    await until(() => mounted.status().getStream === 'open', 'the GET stream to open');
    // The person takes longer than the bare call deadline to answer.
    const asker = new ScriptedAsker(async () => {
      await new Promise((resolve) => setTimeout(resolve, 2000));
      return { kind: 'answer', text: 'slowly' };
    });
    const result = await harness.callInRun('mcp_slowask_ask_on_get', { question: 'Ready?' }, asker);
    expect(result.isError, result.content).not.toBe(true);
    expect(result.content).toBe('answer: slowly');
  });

  it('resumes a dropped GET stream with Last-Event-ID and gets the request sent meanwhile', async () => {
    const server = await startSessionServer('get');
    harness = new HttpHarness();
    const mounted = await harness.mount('sess', `${server.origin}/mcp`, { withHost: true });
    expect(mounted.status().state, mounted.status().failure).toBe('connected');
    await until(() => mounted.status().getStream === 'open', 'the GET stream to open');

    const result = await harness.callInRun(
      'mcp_sess_drop_then_ask',
      { question: 'Still there?' },
      new ScriptedAsker('yes'),
    );
    expect(result.isError, result.content).not.toBe(true);
    expect(result.content).toBe('answer: yes');

    const gets = requests(server).filter((r) => r.verb === 'GET');
    expect(gets).toHaveLength(2);
    expect(gets[0]?.lastEventId).toBeNull();
    // The id of the log line the first stream carried before the server dropped it.
    expect(gets[1]?.lastEventId).toMatch(/^_GET_stream::\d+$/);
    expect(mounted.status().getStream).toBe('open');
  });

  it('reads 405 as "no GET stream" without an error, and calls still work', async () => {
    const server = await startSessionServer('get-405');
    harness = new HttpHarness();
    const mounted = await harness.mount('nostream', `${server.origin}/mcp`, { withHost: true });
    expect(mounted.status().state, mounted.status().failure).toBe('connected');
    await until(() => mounted.status().getStream === 'none', 'the 405 to be read');
    expect(mounted.status().failure).toBeUndefined();
    expect(mounted.status().stderrTail).toEqual([]);
    expect((await harness.call('mcp_nostream_echo', { text: 'hi' })).content).toBe('echo: hi');
    // Exactly one GET: a 405 is an answer, not a failure to retry.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(requests(server).filter((r) => r.verb === 'GET')).toHaveLength(1);
  });

  it('opens the GET stream to server-everything over HTTP', async () => {
    const everything = await startServerEverything();
    harness = new HttpHarness();
    const mounted = await harness.mount('everything', `${everything.origin}/mcp`, {
      withHost: true,
    });
    expect(mounted.status().state, mounted.status().failure).toBe('connected');
    await until(() => mounted.status().getStream === 'open', 'the GET stream to open');
    const echoed = await harness.call('mcp_everything_echo', { message: 'over GET-capable HTTP' });
    expect(echoed.content).toContain('over GET-capable HTTP');
    await mounted.close();
    expect(mounted.status().getStream).toBe('closed');
  });
});

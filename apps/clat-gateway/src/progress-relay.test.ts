import { RunEventStream } from '@clat/kernel';
import type { ServerContext } from '@modelcontextprotocol/server';
import { describe, expect, it } from 'vitest';
import { relayProgress } from './progress-relay.js';

interface Sent {
  method: string;
  params?: Record<string, unknown>;
}

function context(log: Sent[]): ServerContext {
  return {
    mcpReq: {
      signal: new AbortController().signal,
      notify: async (notification: Sent) => {
        log.push(notification);
      },
      send: async (request: Sent) => {
        log.push(request);
        return {};
      },
    },
  } as unknown as ServerContext;
}

const at = 0;

describe('relayProgress', () => {
  it('sends the stages and plugin progress of its call, growing, then a ping barrier', async () => {
    const events = new RunEventStream();
    const log: Sent[] = [];
    const settle = relayProgress({
      events,
      callId: 'c1',
      token: 7,
      ctx: context(log),
      legacy: true,
    });
    const emit = (event: Record<string, unknown>) =>
      events.emit({ runId: 'r', at, ...event } as never);
    emit({ type: 'tool.approved', callId: 'c1', tool: 't', by: 'policy' });
    emit({ type: 'tool.started', callId: 'c1', tool: 't' });
    emit({ type: 'tool.started', callId: 'other', tool: 't' });
    emit({
      type: 'tool.progress',
      callId: 'c1',
      tool: 't',
      progress: 1,
      total: 4,
      message: 'a\u001b[2Jb',
    });
    emit({ type: 'tool.progress', callId: 'c1', tool: 't', progress: 1, total: 4 });
    emit({ type: 'tool.progress', callId: 'c1', tool: 't', progress: 4, total: 4 });
    emit({ type: 'tool.progress', callId: 'c1', tool: 't', task: { id: 'x', status: 'working' } });
    await settle();
    emit({ type: 'tool.progress', callId: 'c1', tool: 't', progress: 5, total: 4 });
    const progress = log
      .filter((sent) => sent.method === 'notifications/progress')
      .map((sent) => [sent.params?.progress, sent.params?.message]);
    expect(progress).toEqual([
      [1, 'approved'],
      [2, 'running'],
      // Plugin text goes through the one sanitiser: the escape is shown, never sent raw.
      [2.25, 'a\\x1b[2Jb'],
      [2.999, 'running'],
    ]);
    expect(log.at(-1)).toEqual({ method: 'ping' });
    expect(
      log.filter((sent) => sent.method !== 'ping').map((sent) => sent.params?.progressToken),
    ).toEqual([7, 7, 7, 7]);
  });

  it('sends nothing without a progress token, and no barrier when nothing was sent', async () => {
    const events = new RunEventStream();
    const log: Sent[] = [];
    const settle = relayProgress({
      events,
      callId: 'c1',
      token: undefined,
      ctx: context(log),
      legacy: true,
    });
    events.emit({ type: 'tool.started', callId: 'c1', tool: 't', runId: 'r', at });
    await settle();
    const quiet = relayProgress({
      events,
      callId: 'c2',
      token: 1,
      ctx: context(log),
      legacy: true,
    });
    await quiet();
    expect(log).toEqual([]);
  });
});

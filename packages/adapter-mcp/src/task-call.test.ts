import { isKernelError, KernelErrorCode, type ToolProgress } from '@clat/kernel';
import { describe, expect, it } from 'vitest';
import { isMcpError, McpError, McpErrorCode } from './errors.js';
import type { RequestOptions } from './rpc-session.js';
import { callToolAsTask, type TaskCallPort } from './task-call.js';

type Answer = Record<string, unknown> | Error;

/** A server that answers each method from its script, in order, recording every request. */
class ScriptedTaskPort implements TaskCallPort {
  readonly server = 'srv';
  readonly sent: { method: string; params: Record<string, unknown>; at: number }[] = [];
  readonly #script: Record<string, Answer[]>;
  readonly #started = Date.now();

  constructor(script: Record<string, Answer[]>) {
    this.#script = script;
  }

  async request(
    method: string,
    params: Record<string, unknown>,
    options: RequestOptions,
  ): Promise<Record<string, unknown>> {
    this.sent.push({ method, params: { ...params }, at: Date.now() - this.#started });
    if (options.signal?.aborted) throw new McpError(McpErrorCode.MCP_CANCELLED, 'cancelled');
    const answer = this.#script[method]?.shift();
    if (answer === undefined) throw new Error(`unscripted ${method}`);
    if (answer instanceof Error) throw answer;
    return answer;
  }

  methods(): string[] {
    return this.sent.map((entry) => entry.method);
  }
}

function task(status: string, extra: Record<string, unknown> = {}) {
  return { taskId: 't1', status, ttl: 60_000, createdAt: 'x', lastUpdatedAt: 'x', ...extra };
}

const CALL: RequestOptions = { timeoutMs: 1_000, what: 'tools/call crunch' };
const FAST = { pollMinMs: 5, pollMaxMs: 40, requestMs: 500, cancelMs: 500, waitMs: 5_000 };
const DONE = { content: [{ type: 'text', text: 'done' }] };

describe('callToolAsTask', () => {
  it('creates the task, polls tasks/get with a growing delay, reports statuses, then reads the result', async () => {
    const port = new ScriptedTaskPort({
      'tools/call': [{ task: task('working') }],
      'tasks/get': [
        task('working', { statusMessage: 'step 1' }),
        task('working', { statusMessage: 'step 1' }),
        task('working', { statusMessage: 'step 2' }),
        task('completed', { statusMessage: 'step 2' }),
      ],
      'tasks/result': [DONE],
    });
    const updates: ToolProgress[] = [];
    const params: Record<string, unknown> = { name: 'crunch', arguments: {} };
    const result = await callToolAsTask(port, params, {
      call: CALL,
      onProgress: (update) => updates.push(update),
      limits: FAST,
    });
    expect(result).toEqual(DONE);
    expect(port.sent[0]?.params).toEqual({ name: 'crunch', arguments: {}, task: {} });
    expect(port.methods()).toEqual([
      'tools/call',
      'tasks/get',
      'tasks/get',
      'tasks/get',
      'tasks/get',
      'tasks/result',
    ]);
    expect(port.sent[1]?.params).toEqual({ taskId: 't1' });
    // An unchanged status is not reported twice.
    expect(updates).toEqual([
      { task: { id: 't1', status: 'working' } },
      { task: { id: 't1', status: 'working' }, message: 'step 1' },
      { task: { id: 't1', status: 'working' }, message: 'step 2' },
      { task: { id: 't1', status: 'completed' }, message: 'step 2' },
    ]);
    const gaps = port.sent.slice(1, 5).map((entry, i) => entry.at - (port.sent[i]?.at ?? 0));
    expect(gaps[3]).toBeGreaterThanOrEqual(FAST.pollMaxMs - 5);
  });

  it('never polls faster than the server pollInterval', async () => {
    const port = new ScriptedTaskPort({
      'tools/call': [{ task: task('working', { pollInterval: 120 }) }],
      'tasks/get': [task('working', { pollInterval: 120 }), task('completed')],
      'tasks/result': [DONE],
    });
    await callToolAsTask(port, { name: 'crunch' }, { call: CALL, limits: FAST });
    const [, first, second] = port.sent;
    expect(first?.at).toBeGreaterThanOrEqual(115);
    expect((second?.at ?? 0) - (first?.at ?? 0)).toBeGreaterThanOrEqual(115);
  });

  it('asks tasks/result at once when the task needs input (it carries the questions)', async () => {
    const port = new ScriptedTaskPort({
      'tools/call': [{ task: task('input_required') }],
      'tasks/result': [DONE],
    });
    const updates: ToolProgress[] = [];
    await callToolAsTask(
      port,
      { name: 'crunch' },
      { call: CALL, limits: FAST, onProgress: (u) => updates.push(u) },
    );
    expect(port.methods()).toEqual(['tools/call', 'tasks/result']);
    expect(updates.at(-1)).toEqual({ task: { id: 't1', status: 'completed' } });
  });

  it('sends tasks/cancel when the call is cancelled mid-task, and ends at once', async () => {
    const controller = new AbortController();
    const port = new ScriptedTaskPort({
      'tools/call': [{ task: task('working') }],
      'tasks/get': Array.from({ length: 50 }, () => task('working')),
      'tasks/cancel': [task('cancelled')],
    });
    const updates: ToolProgress[] = [];
    setTimeout(() => controller.abort('stop'), 30);
    const error = await callToolAsTask(
      port,
      { name: 'crunch' },
      {
        call: CALL,
        signal: controller.signal,
        limits: FAST,
        onProgress: (u) => updates.push(u),
      },
    ).catch((e: unknown) => e);
    const cancelled =
      (isKernelError(error) && error.code === KernelErrorCode.CANCELLED) ||
      (isMcpError(error) && error.code === McpErrorCode.MCP_CANCELLED);
    expect(cancelled).toBe(true);
    expect(port.methods().at(-1)).toBe('tasks/cancel');
    expect(port.sent.at(-1)?.params).toEqual({ taskId: 't1' });
    expect(updates.at(-1)).toEqual({ task: { id: 't1', status: 'cancelled' } });
  });

  it('fails with the server reason when the server cancels the task', async () => {
    const port = new ScriptedTaskPort({
      'tools/call': [{ task: task('working') }],
      'tasks/get': [task('cancelled', { statusMessage: 'shutting down' })],
    });
    const error = await callToolAsTask(
      port,
      { name: 'crunch' },
      { call: CALL, limits: FAST },
    ).catch((e: unknown) => e);
    expect(isMcpError(error) && error.code).toBe(McpErrorCode.MCP_REMOTE_ERROR);
    expect((error as Error).message).toBe(
      'MCP server "srv" cancelled task "t1" of tools/call crunch: shutting down',
    );
    expect(port.methods()).not.toContain('tasks/cancel');
  });

  it('gives up after the task wait limit and cancels the task', async () => {
    const port = new ScriptedTaskPort({
      'tools/call': [{ task: task('working') }],
      'tasks/get': Array.from({ length: 50 }, () => task('working')),
      'tasks/cancel': [task('cancelled')],
    });
    const error = await callToolAsTask(
      port,
      { name: 'crunch' },
      { call: CALL, limits: { ...FAST, waitMs: 60 } },
    ).catch((e: unknown) => e);
    expect(isMcpError(error) && error.code).toBe(McpErrorCode.MCP_TIMEOUT);
    expect((error as Error).message).toContain(
      'did not finish task "t1" of tools/call crunch within 60 ms',
    );
    expect(port.methods().at(-1)).toBe('tasks/cancel');
  });

  it('serves a plain result when the server ran the tool at once', async () => {
    const port = new ScriptedTaskPort({ 'tools/call': [DONE] });
    expect(await callToolAsTask(port, { name: 'crunch' }, { call: CALL, limits: FAST })).toEqual(
      DONE,
    );
  });

  it('names a task result without a task id', async () => {
    const port = new ScriptedTaskPort({ 'tools/call': [{ task: { status: 'working' } }] });
    const error = await callToolAsTask(
      port,
      { name: 'crunch' },
      { call: CALL, limits: FAST },
    ).catch((e: unknown) => e);
    expect((error as Error).message).toBe(
      'MCP server "srv" answered tools/call crunch without a task id',
    );
  });
});

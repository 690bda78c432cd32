import { describe, expect, it } from 'vitest';
import { CancelToken } from './cancel.js';
import type { Effect, PermissionMode } from './effects.js';
import { ClatError, KernelErrorCode } from './errors.js';
import { RunEventStream } from './events.js';
import { LIMITS } from './limits.js';
import { type RunContext, ToolPipeline } from './pipeline.js';
import { createGlobalScope } from './scope.js';
import { ScriptedApprover } from './testing/fakes.js';
import { type Tool, ToolRegistry } from './tool-registry.js';

function setup(
  effect: Effect,
  invoke: Tool['invoke'] = async (args) => ({ content: JSON.stringify(args) }),
) {
  const scope = createGlobalScope();
  const registry = new ToolRegistry();
  const events = new RunEventStream();
  registry.register(
    {
      definition: {
        name: 't',
        description: 'a tool',
        inputSchema: { type: 'object' },
        effect,
        source: { kind: 'mcp', id: 's' },
      },
      invoke,
    },
    scope,
  );
  return { scope, registry, events, pipeline: new ToolPipeline({ registry, events }) };
}

function run(mode: PermissionMode, extra: Partial<RunContext> = {}): RunContext {
  return { runId: 'r1', mode, signal: new AbortController().signal, ...extra };
}

describe('ToolPipeline', () => {
  it('allows by policy and emits requested → approved → started → finished', async () => {
    const { pipeline, events } = setup('read');
    const rec = events.record();
    await expect(pipeline.call('t', { a: 1 }, run('read-only'), { callId: 'c1' })).resolves.toEqual(
      { content: '{"a":1}' },
    );
    expect(rec.events.map((e) => e.type)).toEqual([
      'tool.requested',
      'tool.approved',
      'tool.started',
      'tool.finished',
    ]);
    expect(rec.events[1]).toMatchObject({ by: 'policy', callId: 'c1' });
  });

  it('asks the approver with the full arguments and proceeds on allow', async () => {
    const { pipeline, events } = setup('destructive');
    const approver = new ScriptedApprover({ outcome: 'allow' });
    const rec = events.record();
    const big = 'x'.repeat(10_000);
    await pipeline.call('t', { big }, run('project-write', { approver }));
    expect(approver.requests).toHaveLength(1);
    expect(approver.requests[0]).toMatchObject({
      tool: 't',
      effect: 'destructive',
      arguments: { big },
    });
    expect(rec.events[1]).toMatchObject({ type: 'tool.approved', by: 'user' });
  });

  it('denies on approver deny, never invoking the tool', async () => {
    let invoked = false;
    const { pipeline, events } = setup('execute', async () => {
      invoked = true;
      return { content: '' };
    });
    const rec = events.record();
    await expect(
      pipeline.call(
        't',
        {},
        run('project-write', {
          approver: new ScriptedApprover({ outcome: 'deny', reason: 'nope' }),
        }),
      ),
    ).rejects.toMatchObject({
      code: KernelErrorCode.PERMISSION_DENIED,
      message: 't was not approved: nope',
    });
    expect(invoked).toBe(false);
    expect(rec.events.map((e) => e.type)).toEqual(['tool.requested', 'tool.denied']);
  });

  it('denies an answer that is neither allow nor deny as what it is, not as the user', async () => {
    const { pipeline } = setup('write');
    for (const [answer, said] of [
      [{ outcome: 'yes' }, 'outcome "yes"'],
      [undefined, 'no outcome'],
    ] as const) {
      const approver = new ScriptedApprover(() => answer as never);
      await expect(pipeline.call('t', {}, run('read-only', { approver }))).rejects.toMatchObject({
        code: KernelErrorCode.PERMISSION_DENIED,
        message: `t was not approved: the approver answered with ${said}, not "allow" or "deny", so the call is denied`,
      });
    }
    const plain = new ScriptedApprover({ outcome: 'deny' });
    await expect(pipeline.call('t', {}, run('read-only', { approver: plain }))).rejects.toThrow(
      't was not approved: denied by the user',
    );
  });

  it('fails closed when approval is needed and no approver is attached', async () => {
    const { pipeline } = setup('write');
    await expect(pipeline.call('t', {}, run('read-only'))).rejects.toMatchObject({
      code: KernelErrorCode.PERMISSION_DENIED,
      message: expect.stringContaining('no approver is attached'),
    });
  });

  it('fails closed when the approver throws', async () => {
    const { pipeline } = setup('write');
    const approver = new ScriptedApprover(() => {
      throw new Error('dialog crashed');
    });
    await expect(pipeline.call('t', {}, run('read-only', { approver }))).rejects.toMatchObject({
      code: KernelErrorCode.PERMISSION_DENIED,
      message: expect.stringContaining('dialog crashed'),
    });
  });

  it('Full Access skips the approver for every effect', async () => {
    const { pipeline } = setup('destructive');
    const approver = new ScriptedApprover({ outcome: 'deny' });
    await pipeline.call('t', {}, run('full-access', { approver }));
    expect(approver.requests).toHaveLength(0);
  });

  it('cancels a running tool at once with CANCELLED and a tool.failed event', async () => {
    const { pipeline, events } = setup('read', () => new Promise(() => {}));
    const token = new CancelToken();
    const rec = events.record();
    const pending = pipeline.call('t', {}, run('project-write', { signal: token.signal }));
    setTimeout(() => token.cancel('user pressed Esc'), 5);
    await expect(pending).rejects.toMatchObject({ code: KernelErrorCode.CANCELLED });
    expect(rec.events.at(-1)).toMatchObject({
      type: 'tool.failed',
      error: { code: KernelErrorCode.CANCELLED },
    });
  });

  it('cancels a pending approval', async () => {
    const { pipeline } = setup('destructive');
    const token = new CancelToken();
    const approver = { approve: () => new Promise<never>(() => {}) };
    const pending = pipeline.call(
      't',
      {},
      run('project-write', { signal: token.signal, approver }),
    );
    token.cancel();
    await expect(pending).rejects.toMatchObject({ code: KernelErrorCode.CANCELLED });
  });

  it('rejects unknown tools, non-object arguments and oversized results', async () => {
    const { pipeline } = setup('read', async () => ({
      content: 'x'.repeat(LIMITS.toolResultBytes + 1),
    }));
    await expect(pipeline.call('nope', {}, run('full-access'))).rejects.toMatchObject({
      code: KernelErrorCode.TOOL_NOT_FOUND,
    });
    await expect(pipeline.call('t', [1], run('full-access'))).rejects.toMatchObject({
      code: KernelErrorCode.TOOL_INVALID_ARGUMENTS,
    });
    await expect(pipeline.call('t', {}, run('full-access'))).rejects.toMatchObject({
      code: KernelErrorCode.LIMIT_EXCEEDED,
      message: `tool t of mcp plugin "s" returned ${LIMITS.toolResultBytes + 1} bytes, over the tool result limit of ${LIMITS.toolResultBytes} bytes`,
    });
  });

  it('bounds the size a rich result measured itself, not only its text', async () => {
    const { pipeline } = setup('read', async () => ({
      content: 'short',
      bytes: LIMITS.toolResultBytes + 7,
    }));
    await expect(pipeline.call('t', {}, run('full-access'))).rejects.toMatchObject({
      code: KernelErrorCode.LIMIT_EXCEEDED,
      message: expect.stringContaining(`${LIMITS.toolResultBytes + 7} bytes`),
    });
  });

  it('wraps a thrown non-kernel error as INTERNAL naming the tool', async () => {
    const { pipeline } = setup('read', async () => {
      throw new TypeError('bad');
    });
    await expect(pipeline.call('t', {}, run('full-access'))).rejects.toMatchObject({
      code: KernelErrorCode.INTERNAL,
      message: 'tool t failed: bad',
    });
  });

  it("keeps a plugin's own error code (an MCP timeout is not INTERNAL) and reports it", async () => {
    const timeout = new ClatError('MCP_TIMEOUT', 'tools/call t timed out after 60000 ms');
    const { pipeline, events } = setup('read', async () => {
      throw timeout;
    });
    const failed: unknown[] = [];
    events.onType('tool.failed', (event) => failed.push(event.error));
    await expect(pipeline.call('t', {}, run('full-access'))).rejects.toBe(timeout);
    expect(failed).toEqual([{ code: 'MCP_TIMEOUT', message: timeout.message }]);
  });

  it('shows host calls under their approval name and passes requestedBy to the tool', async () => {
    let seen: unknown;
    const { pipeline } = setup('write', async (_args, ctx) => {
      seen = ctx.requestedBy;
      return { content: 'ok' };
    });
    const approver = new ScriptedApprover();
    const requestedBy = { kind: 'mcp', id: 'todo' };
    await pipeline.call('t', {}, run('read-only', { approver }), {
      approvalName: 'mcp:todo:host:t',
      requestedBy,
    });
    expect(approver.requests[0]).toMatchObject({ tool: 'mcp:todo:host:t', source: requestedBy });
    expect(seen).toEqual(requestedBy);
  });
});

describe('RunEventStream', () => {
  it('contains a throwing listener', () => {
    const errors: unknown[] = [];
    const events = new RunEventStream({ onListenerError: (e) => errors.push(e) });
    const seen: string[] = [];
    events.on(() => {
      throw new Error('listener bug');
    });
    events.onType('run.started', (e) => seen.push(e.runId));
    events.emit({ type: 'run.started', runId: 'r', at: 0, mode: 'project-write' });
    expect(seen).toEqual(['r']);
    expect(errors).toHaveLength(1);
  });
});

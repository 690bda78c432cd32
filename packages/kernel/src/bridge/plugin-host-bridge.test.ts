import { describe, expect, it } from 'vitest';
import { HostContextSnapshotSchema, NATIVE_HOST_TOOLS } from '../contract/host-services.js';
import type { SamplingRequest } from '../contract/plugin-contract.js';
import { KernelErrorCode } from '../errors.js';
import type { RunEvent } from '../events.js';
import { LIMITS } from '../limits.js';
import type { ApprovalDecision, ApprovalRequest } from '../ports.js';
import { ScriptedApprover, ScriptedAsker } from '../testing/fakes.js';
import type { BridgeRunOptions } from './bridge-run.js';
import { PluginHostBridge } from './plugin-host-bridge.js';
import { createTestPipeline, EchoModel } from './test-support.js';

const MCP = { kind: 'mcp', id: 'everything' };
const WASM = { kind: 'wasm', id: 'digest' };

function setup(run: Partial<BridgeRunOptions> = {}) {
  const env = createTestPipeline();
  const bridge = new PluginHostBridge({ projectRoot: '/work/project', pipeline: env.pipeline });
  const controller = new AbortController();
  const model = new EchoModel();
  const approver = new ScriptedApprover();
  const recorded = env.events.record();
  const handle = bridge.beginRun({
    runId: 'run-1',
    mode: 'project-write',
    signal: controller.signal,
    approver,
    model,
    ...run,
  });
  return { ...env, bridge, controller, model, approver, handle, events: recorded.events };
}

const ask = (text: string, extra: Partial<SamplingRequest> = {}): SamplingRequest => ({
  messages: [{ role: 'user', text }],
  maxTokens: 100,
  ...extra,
});

const live = () => new AbortController().signal;

function deferred<T>() {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

const types = (events: RunEvent[]) => events.map((event) => event.type);

describe('PluginHostBridge outside a run', () => {
  it('refuses every host call with HOST_NO_ACTIVE_RUN', async () => {
    const { pipeline } = createTestPipeline();
    const bridge = new PluginHostBridge({ projectRoot: '/p', pipeline });
    const refused = { code: KernelErrorCode.HOST_NO_ACTIVE_RUN };
    await expect(bridge.context(MCP)).rejects.toMatchObject(refused);
    await expect(bridge.callTool(MCP, 'read_file', { path: 'a' }, live())).rejects.toMatchObject(
      refused,
    );
    await expect(bridge.createMessage(MCP, ask('hi'), live())).rejects.toMatchObject(refused);
    await expect(bridge.elicit(MCP, { message: 'm', fields: [] }, live())).rejects.toMatchObject(
      refused,
    );
    const handle = bridge.beginRun({ runId: 'r', mode: 'project-write', signal: live() });
    handle.end();
    expect(handle.active).toBe(false);
    await expect(bridge.context(MCP)).rejects.toMatchObject(refused);
  });

  it('allows one run at a time', () => {
    const { bridge } = setup();
    expect(() => bridge.beginRun({ runId: 'run-2', mode: 'read-only', signal: live() })).toThrow(
      expect.objectContaining({ code: KernelErrorCode.RUN_ALREADY_ACTIVE }),
    );
  });
});

describe('context', () => {
  it('returns a bounded, detached snapshot that validates against the contract', async () => {
    const history: unknown[] = Array.from({ length: 100 }, (_, i) => ({
      role: 'user',
      text: `m${i}`,
    }));
    const { bridge, model } = setup({ sessionId: 's-1', history: () => history });
    const snapshot = await bridge.context(MCP);
    expect(HostContextSnapshotSchema.parse(snapshot)).toEqual(snapshot);
    expect(snapshot.project.root).toBe('/work/project');
    expect(snapshot.run).toMatchObject({
      runId: 'run-1',
      sessionId: 's-1',
      provider: model.name,
      model: model.model,
      permissionMode: 'project-write',
    });
    expect(snapshot.run?.messages).toHaveLength(LIMITS.contextMessages);
    expect(snapshot.hostTools).toEqual([...NATIVE_HOST_TOOLS]);
    (snapshot.run?.messages[0] as { text: string }).text = 'changed';
    expect((history[36] as { text: string }).text).toBe('m36');
    // Nothing beyond the documented fields crosses: no approver, asker, registry, or model object.
    expect(Object.keys(snapshot.run ?? {}).sort()).toEqual(
      ['messages', 'model', 'permissionMode', 'provider', 'runId', 'sessionId'].sort(),
    );
    expect(JSON.stringify(snapshot)).not.toContain('approve');
  });

  it('survives a throwing history source', async () => {
    const { bridge, events } = setup({
      history: () => {
        throw new Error('journal locked');
      },
    });
    expect((await bridge.context(MCP)).run?.messages).toEqual([]);
    expect(
      events.some(
        (event) => event.type === 'diagnostic' && event.message.includes('journal locked'),
      ),
    ).toBe(true);
  });

  it('pushes snapshots on subscribe, metadata change and null at run end; contains a throwing subscriber', async () => {
    const { bridge, handle, events } = setup();
    const seen: (string | null)[] = [];
    const stop = bridge.subscribeContext(MCP, (snapshot) =>
      seen.push(snapshot?.run?.sessionId ?? null),
    );
    bridge.subscribeContext(WASM, () => {
      throw new Error('subscriber exploded');
    });
    await Promise.resolve();
    handle.update({ sessionId: 'session-9', mode: 'full-access' });
    await Promise.resolve();
    expect((await bridge.context(MCP)).run?.permissionMode).toBe('full-access');
    handle.end();
    await Promise.resolve();
    expect(seen).toEqual([null, 'session-9', null]);
    expect(events.filter((event) => event.type === 'diagnostic').length).toBeGreaterThan(0);
    stop();
    bridge.beginRun({ runId: 'run-2', mode: 'read-only', signal: live() });
    await Promise.resolve();
    expect(seen).toHaveLength(3);
  });
});

describe('callTool', () => {
  it('runs an allowlisted tool through the pipeline with the plugin name, caller and run signal', async () => {
    const { bridge, calls, events } = setup();
    const output = await bridge.callTool(MCP, 'read_file', { path: 'src/a.ts' }, live());
    expect(output).toEqual({ tool: 'read_file', args: { path: 'src/a.ts' } });
    expect(calls).toHaveLength(1);
    expect(calls[0]?.ctx.requestedBy).toEqual(MCP);
    expect(calls[0]?.ctx.run.id).toBe('run-1');
    expect(calls[0]?.ctx.callId).toMatch(/^clat-host-\d+$/);
    expect(types(events)).toEqual([
      'tool.requested',
      'tool.approved',
      'tool.started',
      'tool.finished',
    ]);
  });

  it('refuses every call once the run is cancelled', async () => {
    const { bridge, calls, controller } = setup({ mode: 'full-access' });
    controller.abort('user pressed Esc');
    await expect(bridge.callTool(MCP, 'read_file', { path: 'a' }, live())).rejects.toMatchObject({
      code: KernelErrorCode.CANCELLED,
    });
    await expect(bridge.createMessage(MCP, ask('x'), live())).rejects.toMatchObject({
      code: KernelErrorCode.CANCELLED,
    });
    expect(calls).toHaveLength(0);
  });

  it('refuses tools outside the allowlist, even registered ones', async () => {
    const { bridge, calls } = setup();
    for (const name of ['ask_user', 'mcp_x_y', 'exec_command', '']) {
      await expect(bridge.callTool(MCP, name, {}, live())).rejects.toMatchObject({
        code: KernelErrorCode.HOST_TOOL_NOT_ALLOWED,
      });
    }
    expect(calls).toHaveLength(0);
  });

  it('asks the approver under <kind>:<id>:host:<tool> with the raw arguments, per the run mode', async () => {
    const { bridge, approver, calls } = setup({ mode: 'project-write' });
    await bridge.callTool(WASM, 'run_command', { command: 'ls ../..' }, live());
    expect(approver.requests).toHaveLength(1);
    expect(approver.requests[0]).toMatchObject({
      tool: 'wasm:digest:host:run_command',
      effect: 'execute',
      source: WASM,
      arguments: { command: 'ls ../..' },
    });
    await bridge.callTool(WASM, 'write_file', { path: 'a', content: 'b' }, live());
    expect(approver.requests).toHaveLength(1);
    expect(calls).toHaveLength(2);
  });

  it('fails closed on denial', async () => {
    const denied = setup({ approver: new ScriptedApprover({ outcome: 'deny', reason: 'nope' }) });
    await expect(
      denied.bridge.callTool(MCP, 'run_command', { command: 'rm -rf /' }, live()),
    ).rejects.toMatchObject({
      code: KernelErrorCode.PERMISSION_DENIED,
    });
    expect(denied.calls).toHaveLength(0);
  });

  it('denies a headless Ask without an approver', async () => {
    const env = createTestPipeline();
    const bridge = new PluginHostBridge({ projectRoot: '/p', pipeline: env.pipeline });
    bridge.beginRun({ runId: 'r', mode: 'read-only', signal: live() });
    await expect(
      bridge.callTool(MCP, 'write_file', { path: 'a', content: '' }, live()),
    ).rejects.toMatchObject({
      code: KernelErrorCode.PERMISSION_DENIED,
    });
    expect(env.calls).toHaveLength(0);
  });

  it('turns a tool-level failure into HOST_TOOL_FAILED, or the kernel code the tool reported', async () => {
    const env = createTestPipeline({
      read_file: {
        content: 'path ../x is outside the project',
        isError: true,
        structured: { error: { code: 'HOST_PATH_OUTSIDE_PROJECT' } },
      },
      list_files: { content: 'no such directory: nope', isError: true },
    });
    const bridge = new PluginHostBridge({ projectRoot: '/p', pipeline: env.pipeline });
    bridge.beginRun({ runId: 'r', mode: 'project-write', signal: live() });
    await expect(bridge.callTool(MCP, 'read_file', { path: '../x' }, live())).rejects.toMatchObject(
      {
        code: KernelErrorCode.HOST_PATH_OUTSIDE_PROJECT,
      },
    );
    await expect(
      bridge.callTool(MCP, 'list_files', { path: 'nope' }, live()),
    ).rejects.toMatchObject({
      code: KernelErrorCode.HOST_TOOL_FAILED,
      message: expect.stringContaining('no such directory'),
    });
  });

  it('ignores an approval that arrives after the run ended', async () => {
    const gate = deferred<ApprovalDecision>();
    const approver = new ScriptedApprover(() => gate.promise);
    const { bridge, handle, calls } = setup({ approver });
    const pending = bridge.callTool(MCP, 'run_command', { command: 'make' }, live());
    await Promise.resolve();
    handle.end();
    gate.resolve({ outcome: 'allow' });
    await expect(pending).rejects.toMatchObject({ code: KernelErrorCode.CANCELLED });
    expect(calls).toHaveLength(0);
  });

  it('stops at once when the caller cancels', async () => {
    const approver = new ScriptedApprover(() => new Promise<ApprovalDecision>(() => {}));
    const { bridge, calls } = setup({ approver });
    const caller = new AbortController();
    const pending = bridge.callTool(MCP, 'run_command', { command: 'make' }, caller.signal);
    caller.abort('tools/call cancelled');
    await expect(pending).rejects.toMatchObject({ code: KernelErrorCode.CANCELLED });
    expect(calls).toHaveLength(0);
  });
});

describe('createMessage', () => {
  it('asks the approver with the complete payload, then the session model', async () => {
    const { bridge, approver, model, events, handle } = setup({ mode: 'project-write' });
    const sentinel = `${'long context '.repeat(2000)}SENTINEL-END`;
    const outcome = await bridge.createMessage(
      MCP,
      ask(sentinel, { systemPrompt: `system ${'x'.repeat(5000)} SYSTEM-END`, temperature: 0.2 }),
      live(),
    );
    expect(outcome).toEqual({ text: `echo: ${sentinel}`, model: 'echo-1', stopReason: 'endTurn' });
    const request = approver.requests[0] as ApprovalRequest;
    expect(request.tool).toBe('mcp:everything:sampling');
    expect(request.effect).toBe('execute');
    expect(request.arguments).toEqual({
      source: 'mcp:everything',
      maxTokens: 100,
      temperature: 0.2,
      systemPrompt: `system ${'x'.repeat(5000)} SYSTEM-END`,
      messages: [{ role: 'user', text: sentinel }],
    });
    expect(model.requests[0]).toEqual({
      system: `system ${'x'.repeat(5000)} SYSTEM-END`,
      messages: [{ role: 'user', text: sentinel }],
      maxTokens: 100,
      temperature: 0.2,
      // The requesting plugin, so a forwarding provider (clat-gateway) can route the request.
      source: MCP,
    });
    expect(types(events)).toEqual([
      'sampling.requested',
      'sampling.approved',
      'sampling.completed',
    ]);
    expect(handle.usage()).toEqual({
      requests: 1,
      completed: 1,
      inputTokens: 10,
      outputTokens: 5,
      budgetTokens: 15,
    });
  });

  it('Full Access skips only the dialog: payload and budget gates still apply', async () => {
    const { bridge, approver, model, events } = setup({ mode: 'full-access' });
    await bridge.createMessage(MCP, ask('hi'), live());
    expect(approver.requests).toHaveLength(0);
    expect(events.find((event) => event.type === 'sampling.approved')).toMatchObject({
      by: 'policy',
    });
    const tooMany = {
      messages: Array.from({ length: LIMITS.samplingMessages + 1 }, () => ({
        role: 'user' as const,
        text: 'x',
      })),
      maxTokens: 1,
    };
    await expect(bridge.createMessage(MCP, tooMany, live())).rejects.toMatchObject({
      code: KernelErrorCode.SAMPLING_PAYLOAD_TOO_LARGE,
    });
    for (let i = 1; i < LIMITS.samplingRequestsPerRun; i++)
      await bridge.createMessage(MCP, ask('x'), live());
    await expect(bridge.createMessage(WASM, ask('x'), live())).rejects.toMatchObject({
      code: KernelErrorCode.SAMPLING_BUDGET_EXHAUSTED,
    });
    expect(model.requests).toHaveLength(LIMITS.samplingRequestsPerRun);
  });

  it('shares one request budget across MCP, WASM and DSH callers and resets per run', async () => {
    const { bridge, handle } = setup({ mode: 'full-access' });
    const callers = [MCP, WASM, { kind: 'dsh', id: 'todo' }];
    for (let i = 0; i < LIMITS.samplingRequestsPerRun; i++) {
      await bridge.createMessage(callers[i % 3] as typeof MCP, ask('x'), live());
    }
    for (const caller of callers) {
      await expect(bridge.createMessage(caller, ask('x'), live())).rejects.toMatchObject({
        code: KernelErrorCode.SAMPLING_BUDGET_EXHAUSTED,
      });
    }
    handle.end();
    bridge.beginRun({
      runId: 'run-2',
      mode: 'full-access',
      signal: live(),
      model: new EchoModel(),
    });
    await expect(bridge.createMessage(MCP, ask('x'), live())).resolves.toMatchObject({
      text: 'echo: x',
    });
  });

  it('checks the payload before the budget, and the budget before the dialog', async () => {
    const { bridge, approver, model, handle } = setup();
    const huge = ask('y'.repeat(LIMITS.samplingOutboundChars + 1));
    await expect(bridge.createMessage(MCP, huge, live())).rejects.toMatchObject({
      code: KernelErrorCode.SAMPLING_PAYLOAD_TOO_LARGE,
    });
    expect(handle.usage().requests).toBe(0);
    // Fill the token guard with unreported usage, then one more request is refused before any dialog.
    model.usage = null;
    const per = Math.ceil(LIMITS.samplingOutboundChars / 4) + LIMITS.samplingMaxOutputTokens;
    const fits = Math.floor(LIMITS.samplingTokensPerRun / per);
    const full = ask('z'.repeat(LIMITS.samplingOutboundChars), {
      maxTokens: LIMITS.samplingMaxOutputTokens,
    });
    for (let i = 0; i < fits; i++) await bridge.createMessage(MCP, full, live());
    const dialogs = approver.requests.length;
    await expect(bridge.createMessage(MCP, full, live())).rejects.toMatchObject({
      code: KernelErrorCode.SAMPLING_BUDGET_EXHAUSTED,
    });
    expect(approver.requests).toHaveLength(dialogs);
    expect(handle.usage().budgetTokens).toBe(fits * per);
  });

  it('clamps maxTokens over the limit and shows both numbers to the approver', async () => {
    const { bridge, approver, model } = setup();
    await bridge.createMessage(
      MCP,
      ask('x', { maxTokens: LIMITS.samplingMaxOutputTokens + 1 }),
      live(),
    );
    expect(model.requests[0]?.maxTokens).toBe(LIMITS.samplingMaxOutputTokens);
    expect(approver.requests[0]?.arguments).toMatchObject({
      maxTokens: LIMITS.samplingMaxOutputTokens,
      requestedMaxTokens: LIMITS.samplingMaxOutputTokens + 1,
    });
  });

  it('fails closed: denial, headless, no model', async () => {
    const denied = setup({
      approver: new ScriptedApprover({ outcome: 'deny', reason: 'too chatty' }),
    });
    await expect(denied.bridge.createMessage(MCP, ask('x'), live())).rejects.toMatchObject({
      code: KernelErrorCode.SAMPLING_NOT_APPROVED,
      message: 'sampling was not approved: too chatty',
    });
    expect(denied.model.requests).toHaveLength(0);
    expect(denied.handle.usage()).toMatchObject({ requests: 1, budgetTokens: 0 });
    expect(types(denied.events)).toEqual([
      'sampling.requested',
      'sampling.denied',
      'sampling.failed',
    ]);

    const env = createTestPipeline();
    const bridge = new PluginHostBridge({ projectRoot: '/p', pipeline: env.pipeline });
    const model = new EchoModel();
    bridge.beginRun({ runId: 'r', mode: 'project-write', signal: live(), model });
    await expect(bridge.createMessage(MCP, ask('x'), live())).rejects.toMatchObject({
      code: KernelErrorCode.SAMPLING_NOT_APPROVED,
    });
    expect(model.requests).toHaveLength(0);

    const noModel = setup({ mode: 'full-access' });
    noModel.handle.end();
    noModel.bridge.beginRun({ runId: 'r2', mode: 'full-access', signal: live() });
    await expect(noModel.bridge.createMessage(MCP, ask('x'), live())).rejects.toMatchObject({
      code: KernelErrorCode.SAMPLING_UNAVAILABLE,
      message: 'sampling is unavailable: no model is configured for this run',
    });

    // The host names its own settings; the kernel only appends what it was given.
    const hinted = new PluginHostBridge({
      projectRoot: '/p',
      pipeline: createTestPipeline().pipeline,
      noModelHint: 'set "provider" in the config',
    });
    hinted.beginRun({ runId: 'r3', mode: 'full-access', signal: live() });
    await expect(hinted.createMessage(MCP, ask('x'), live())).rejects.toMatchObject({
      code: KernelErrorCode.SAMPLING_UNAVAILABLE,
      message:
        'sampling is unavailable: no model is configured for this run; set "provider" in the config',
    });
  });

  it('ignores a late approval after the run ended or a new run started', async () => {
    const gate = deferred<ApprovalDecision>();
    const { bridge, handle, model } = setup({ approver: new ScriptedApprover(() => gate.promise) });
    const pending = bridge.createMessage(MCP, ask('x'), live());
    await Promise.resolve();
    handle.end();
    const next = bridge.beginRun({ runId: 'run-2', mode: 'project-write', signal: live(), model });
    gate.resolve({ outcome: 'allow' });
    await expect(pending).rejects.toMatchObject({ code: KernelErrorCode.CANCELLED });
    expect(model.requests).toHaveLength(0);
    expect(next.usage().requests).toBe(0);
    expect(handle.usage()).toMatchObject({ requests: 1, budgetTokens: 0 });
  });

  it('ignores a model answer that arrives after the run ended, but keeps its cost on that run', async () => {
    const { bridge, handle, model } = setup({ mode: 'full-access' });
    const gate = deferred<void>();
    model.answer = async () => {
      await gate.promise;
      return { text: 'late', model: 'echo-1', stopReason: 'endTurn', usage: null };
    };
    const pending = bridge.createMessage(MCP, ask('x'), live());
    await new Promise((resolve) => setTimeout(resolve, 0));
    handle.end();
    gate.resolve();
    await expect(pending).rejects.toMatchObject({ code: KernelErrorCode.CANCELLED });
    expect(handle.usage().budgetTokens).toBe(1 + 100);
  });

  it('passes the cancel signal to the provider and reports its failures', async () => {
    const { bridge, model } = setup({ mode: 'full-access' });
    let seen: AbortSignal | undefined;
    model.answer = (_request, signal) => {
      seen = signal;
      return new Promise(() => {});
    };
    const caller = new AbortController();
    const pending = bridge.createMessage(MCP, ask('x'), caller.signal);
    await new Promise((resolve) => setTimeout(resolve, 0));
    caller.abort('tools/call cancelled');
    await expect(pending).rejects.toMatchObject({ code: KernelErrorCode.CANCELLED });
    expect(seen?.aborted).toBe(true);
    model.answer = async () => {
      throw new Error('HTTP 529 overloaded');
    };
    await expect(bridge.createMessage(MCP, ask('x'), live())).rejects.toMatchObject({
      code: KernelErrorCode.SAMPLING_PROVIDER_FAILED,
      message: expect.stringContaining('overloaded'),
    });
  });
});

describe('elicit', () => {
  const form = {
    message: 'Pick',
    fields: [{ name: 'color', kind: 'choice' as const, options: ['red', 'blue'], required: true }],
  };

  it('asks through the run asker and records events', async () => {
    const asker = new ScriptedAsker('blue');
    const { bridge, events } = setup({ asker });
    expect(await bridge.elicit(MCP, form, live())).toEqual({
      tag: 'accepted',
      val: [['color', { tag: 'text', val: 'blue' }]],
    });
    expect(asker.questions[0]?.question).toBe(
      'Pick\n\n— color (required; an empty answer declines the form)',
    );
    expect(asker.questions[0]?.source).toEqual(MCP);
    expect(
      events.map((event) => (event.type === 'elicitation.completed' ? event.action : event.type)),
    ).toEqual(['elicitation.requested', 'accept']);
  });

  it('hands a host tool the run it serves: id, mode, approver and asker', async () => {
    const asker = new ScriptedAsker('blue');
    const { bridge, approver, calls } = setup({ asker });
    await bridge.callTool(MCP, 'read_file', { path: 'a' }, live());
    const run = calls[0]?.ctx.run;
    expect(run?.id).toBe('run-1');
    expect(run?.approver).toBe(approver);
    expect(run?.asker).toBe(asker);
    expect(typeof run?.mode).toBe('string');
  });

  it('fails cleanly when headless', async () => {
    const { bridge } = setup();
    await expect(bridge.elicit(MCP, form, live())).rejects.toMatchObject({
      code: KernelErrorCode.ELICITATION_NO_FRONTEND,
    });
  });

  it('rejects unsupported forms before asking anyone', async () => {
    const asker = new ScriptedAsker('x');
    const { bridge } = setup({ asker });
    const tooMany = {
      message: 'm',
      fields: Array.from({ length: LIMITS.elicitationFields + 1 }, (_, i) => ({
        name: `f${i}`,
        kind: 'text' as const,
        options: [],
        required: true,
      })),
    };
    await expect(bridge.elicit(MCP, tooMany, live())).rejects.toMatchObject({
      code: KernelErrorCode.ELICITATION_UNSUPPORTED,
    });
    expect(asker.questions).toHaveLength(0);
  });

  it('caps forms per run', async () => {
    const asker = new ScriptedAsker(
      ...Array.from({ length: LIMITS.elicitationFormsPerRun + 1 }, () => 'red'),
    );
    const { bridge } = setup({ asker });
    for (let i = 0; i < LIMITS.elicitationFormsPerRun; i++) await bridge.elicit(MCP, form, live());
    await expect(bridge.elicit(MCP, form, live())).rejects.toMatchObject({
      code: KernelErrorCode.LIMIT_EXCEEDED,
    });
  });

  it('ignores an answer that arrives after the run ended', async () => {
    const gate = deferred<{ kind: 'answer'; text: string }>();
    const asker = new ScriptedAsker(() => gate.promise);
    const { bridge, handle } = setup({ asker });
    const pending = bridge.elicit(MCP, form, live());
    await Promise.resolve();
    handle.end();
    gate.resolve({ kind: 'answer', text: 'red' });
    await expect(pending).rejects.toMatchObject({ code: KernelErrorCode.CANCELLED });
  });
});

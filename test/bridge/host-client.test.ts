/**
 * The PluginHostBridge end to end against real fixture server processes: every sampling gate,
 * floods, elicitation shapes, host-tool allowlist and project fence, and host calls outside a run.
 */
import { readFileSync } from 'node:fs';
import { mkdir, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { LIMITS } from '@clat/kernel';
import { ScriptedApprover, ScriptedAsker } from '@clat/kernel/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type BridgeHarness,
  createBridgeHarness,
  fixtureServer,
  ScriptedModel,
} from './harness.js';

interface Outcome {
  ok: boolean;
  rpcCode?: number;
  code?: string | null;
  message?: string;
  result?: Record<string, unknown>;
}

let h: BridgeHarness;

/** Running, not a zombie awaiting a slow init. */
function running(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return !/^[ZX]/.test(stat.slice(stat.lastIndexOf(')') + 2));
  } catch {
    return false;
  }
}
let outside: string;
const SAMPLE = 'mcp_host_client_sample';
const FLOOD = 'mcp_host_client_flood_sampling';
const ELICIT = 'mcp_host_client_elicit';
const HOST_TOOL = 'mcp_host_client_host_tool';
const CONTEXT = 'mcp_host_client_context';
const IDLE = 'mcp_host_client_idle_report';

beforeAll(async () => {
  h = await createBridgeHarness(
    [
      fixtureServer('host-client', 'host-client-server.mjs', { FIXTURE_IDLE_CALLS: '1' }),
      // A generic server: it does not advertise io.artec.clat/hostServices.
      fixtureServer('generic', 'host-client-server.mjs', { FIXTURE_NO_HOST_SERVICES: '1' }),
      // Negotiates 2025-03-26, before elicitation existed.
      fixtureServer('old', 'host-client-server.mjs', { FIXTURE_PROTOCOL: '2025-03-26' }),
    ],
    {
      async setupProject(root) {
        outside = join(root, '..', `${root.split('/').pop()}-outside`);
        await mkdir(outside, { recursive: true });
        await writeFile(join(outside, 'secret.txt'), 'top secret\n');
        await writeFile(join(root, 'README.md'), '# project\nline two\n');
        await symlink(outside, join(root, 'escape'));
        await symlink(join(outside, 'secret.txt'), join(root, 'secret-link'));
      },
    },
  );
  expect(h.servers.get('host-client')?.status().state).toBe('connected');
});
afterAll(async () => {
  await h?.close();
  // Beside the project, so the harness's own cleanup does not reach it.
  if (outside !== undefined) await rm(outside, { recursive: true, force: true });
});

/** Runs `body` inside a fresh bridge run and always ends it. */
async function inRun<T>(
  options: Parameters<BridgeHarness['beginRun']>[0],
  body: (
    context: ReturnType<BridgeHarness['beginRun']>['context'],
    run: ReturnType<BridgeHarness['beginRun']>['run'],
  ) => Promise<T>,
): Promise<T> {
  const { run, context } = h.beginRun(options);
  try {
    return await body(context, run);
  } finally {
    run.end();
  }
}

describe('host calls outside a run', () => {
  it('refuses context, host tools, sampling and elicitation sent before any run', async () => {
    const report = await inRun({ mode: 'full-access' }, (context) =>
      h.callJson<{ idle: (Outcome & { method: string })[] }>(IDLE, {}, context),
    );
    const byMethod = Object.fromEntries(report.idle.map((o) => [o.method, o]));
    expect(byMethod['io.artec.clat/context/get']).toMatchObject({
      ok: false,
      rpcCode: -32000,
      code: 'HOST_NO_ACTIVE_RUN',
    });
    expect(byMethod['io.artec.clat/tools/call']).toMatchObject({
      ok: false,
      rpcCode: -32000,
      code: 'HOST_NO_ACTIVE_RUN',
    });
    expect(byMethod['sampling/createMessage']).toMatchObject({ ok: false });
    expect(byMethod['elicitation/create']).toMatchObject({ ok: false });
  });

  it('refuses host calls made during a tools/call that belongs to no run', async () => {
    // The pipeline runs the MCP tool, but no bridge run is installed.
    const context = {
      runId: 'no-bridge-run',
      mode: 'full-access' as const,
      signal: new AbortController().signal,
    };
    const out = await h.callJson<Outcome>(CONTEXT, {}, context);
    expect(out).toMatchObject({ ok: false, code: 'HOST_NO_ACTIVE_RUN' });
    const tool = await h.callJson<Outcome>(HOST_TOOL, { name: 'list_files' }, context);
    expect(tool).toMatchObject({ ok: false, code: 'HOST_NO_ACTIVE_RUN' });
  });
});

describe('sampling gates', () => {
  it('serves a request exactly at every payload limit with the session model, ignoring model preferences', async () => {
    const model = new ScriptedModel();
    const approver = new ScriptedApprover({ outcome: 'allow' });
    await inRun({ mode: 'full-access', model, approver }, async (context, run) => {
      const out = await h.callJson<Outcome>(
        SAMPLE,
        {
          count: LIMITS.samplingMessages,
          chars: LIMITS.samplingOutboundChars,
          maxTokens: LIMITS.samplingMaxOutputTokens,
        },
        context,
      );
      expect(out).toMatchObject({ ok: true, result: { role: 'assistant', model: 'scripted-1' } });
      expect(model.requests).toHaveLength(1);
      expect(model.requests[0]?.messages).toHaveLength(LIMITS.samplingMessages);
      // The server's model hint and includeContext are ignored: session model, no conversation.
      expect(JSON.stringify(model.requests[0])).not.toContain('some-other-model');
      expect(run.usage().requests).toBe(1);
      // Full Access skips the dialog only.
      expect(approver.requests).toHaveLength(0);
    });
  });

  it.each([
    ['33 messages', { count: LIMITS.samplingMessages + 1, chars: 100 }],
    ['262,145 characters', { count: 2, chars: LIMITS.samplingOutboundChars + 1 }],
    [
      '262,145 characters counting the system prompt',
      { count: 1, chars: LIMITS.samplingOutboundChars, systemPrompt: 'x' },
    ],
    ['image content', { image: true }],
  ])('rejects %s with -32602 before the budget, approval or model', async (_label, args) => {
    const model = new ScriptedModel();
    const approver = new ScriptedApprover({ outcome: 'allow' });
    await inRun({ mode: 'project-write', model, approver }, async (context, run) => {
      const out = await h.callJson<Outcome>(SAMPLE, args, context);
      expect(out).toMatchObject({ ok: false, rpcCode: -32602 });
      expect(model.requests).toHaveLength(0);
      expect(approver.requests).toHaveLength(0);
      expect(run.usage().requests).toBe(0);
    });
  });

  it('clamps 8,193 requested output tokens to 8,192', async () => {
    const model = new ScriptedModel();
    await inRun({ mode: 'full-access', model }, async (context) => {
      const out = await h.callJson<Outcome>(
        SAMPLE,
        { maxTokens: LIMITS.samplingMaxOutputTokens + 1 },
        context,
      );
      expect(out.ok).toBe(true);
      expect(model.requests[0]?.maxTokens).toBe(LIMITS.samplingMaxOutputTokens);
    });
  });

  it('stops at the 65th request of a run, even in Full Access', async () => {
    const model = new ScriptedModel();
    await inRun({ mode: 'full-access', model }, async (context, run) => {
      const out = await h.callJson<{ counts: Record<string, number>; firstFailure: number }>(
        FLOOD,
        { n: LIMITS.samplingRequestsPerRun + 1 },
        context,
      );
      expect(out.counts).toEqual({
        ok: LIMITS.samplingRequestsPerRun,
        SAMPLING_BUDGET_EXHAUSTED: 1,
      });
      expect(out.firstFailure).toBe(LIMITS.samplingRequestsPerRun);
      expect(model.requests).toHaveLength(LIMITS.samplingRequestsPerRun);
      expect(run.usage().requests).toBe(LIMITS.samplingRequestsPerRun);
    });
    // A new run has a fresh budget.
    await inRun({ mode: 'full-access', model: new ScriptedModel() }, async (context) => {
      expect(await h.callJson<Outcome>(SAMPLE, {}, context)).toMatchObject({ ok: true });
    });
  });

  it('stops large requests at the approximate 1,000,000-token run guard, before the 64-request cap', async () => {
    const model = new ScriptedModel();
    await inRun({ mode: 'full-access', model }, async (context, run) => {
      const out = await h.callJson<{ counts: Record<string, number>; firstFailure: number }>(
        FLOOD,
        { n: 40, chars: LIMITS.samplingOutboundChars, maxTokens: LIMITS.samplingMaxOutputTokens },
        context,
      );
      expect(out.firstFailure).toBeGreaterThan(0);
      expect(out.firstFailure).toBeLessThan(LIMITS.samplingRequestsPerRun);
      expect(out.counts).toEqual({
        ok: out.firstFailure,
        SAMPLING_BUDGET_EXHAUSTED: 40 - out.firstFailure,
      });
      expect(model.requests).toHaveLength(out.firstFailure);
      const usage = run.usage();
      expect(usage.completed).toBe(out.firstFailure);
      // Real usage was reconciled: what the model reported is what the run counts.
      expect(usage.inputTokens).toBe(out.firstFailure * (LIMITS.samplingOutboundChars / 4));
      expect(usage.budgetTokens).toBeLessThanOrEqual(LIMITS.samplingTokensPerRun);
    });
  });

  it('answers every request of a concurrent flood without hanging, within the run budget', async () => {
    const model = new ScriptedModel();
    const n = 100;
    await inRun({ mode: 'full-access', model }, async (context) => {
      const out = await h.callJson<{ counts: Record<string, number> }>(
        FLOOD,
        { n, concurrent: true },
        context,
      );
      const total = Object.values(out.counts).reduce((a, b) => a + b, 0);
      expect(total).toBe(n);
      expect(out.counts.ok ?? 0).toBeLessThanOrEqual(LIMITS.samplingRequestsPerRun);
      expect(model.requests.length).toBe(out.counts.ok ?? 0);
    });
  });

  it('reports a denial as SAMPLING_NOT_APPROVED and a missing model as SAMPLING_UNAVAILABLE', async () => {
    const approver = new ScriptedApprover({ outcome: 'deny', reason: 'no thanks' });
    await inRun(
      { mode: 'project-write', model: new ScriptedModel(), approver },
      async (context) => {
        const out = await h.callJson<Outcome>(SAMPLE, {}, context);
        expect(out).toMatchObject({ ok: false, rpcCode: -32000, code: 'SAMPLING_NOT_APPROVED' });
        expect(approver.requests[0]?.tool).toBe('mcp:host-client:sampling');
      },
    );
    await inRun({ mode: 'full-access' }, async (context) => {
      expect(await h.callJson<Outcome>(SAMPLE, {}, context)).toMatchObject({
        ok: false,
        code: 'SAMPLING_UNAVAILABLE',
      });
    });
  });
});

describe('host tools', () => {
  it('runs allowlisted tools through the pipeline with the plugin fence', async () => {
    await inRun({ mode: 'project-write' }, async (context) => {
      const out = await h.callJson<Outcome>(
        HOST_TOOL,
        { name: 'read_file', arguments: { path: 'README.md' } },
        context,
      );
      expect(out).toMatchObject({
        ok: true,
        result: { output: { path: 'README.md', content: '1 | # project\n2 | line two\n' } },
      });
      const listed = await h.callJson<Outcome>(
        HOST_TOOL,
        { name: 'search', arguments: { query: 'line' } },
        context,
      );
      expect(listed).toMatchObject({
        ok: true,
        result: { output: { matches: [{ path: 'README.md', line: 2 }] } },
      });
    });
    const requested = h.events.filter((e) => e.type === 'tool.requested' && e.tool === 'read_file');
    expect(requested.length).toBeGreaterThan(0);
  });

  it.each(['ask_user', 'exec_command', 'mcp_host_client_sample', 'missing_tool'])(
    'refuses the non-allowlisted tool %s',
    async (name) => {
      await inRun({ mode: 'full-access' }, async (context) => {
        const out = await h.callJson<Outcome>(HOST_TOOL, { name, arguments: {} }, context);
        expect(out).toMatchObject({ ok: false, rpcCode: -32602, code: 'HOST_TOOL_NOT_ALLOWED' });
      });
    },
  );

  it.each([
    ['read_file', { path: '../outside.txt' }],
    ['read_file', { path: 'secret-link' }],
    ['read_file', { path: 'escape/secret.txt' }],
    ['list_files', { path: 'escape' }],
    ['search', { query: 'secret', path: 'escape' }],
    ['write_file', { path: 'escape/planted.txt', content: 'x' }],
    ['write_file', { path: 'secret-link', content: 'overwritten' }],
    ['edit_file', { path: 'secret-link', old_str: 'top', new_str: 'no' }],
  ])('fences %s %j', async (name, args) => {
    await inRun({ mode: 'full-access' }, async (context) => {
      const out = await h.callJson<Outcome>(HOST_TOOL, { name, arguments: args }, context);
      expect(out).toMatchObject({ ok: false, rpcCode: -32602, code: 'HOST_PATH_OUTSIDE_PROJECT' });
    });
    expect((await readdir(outside)).sort()).toEqual(['secret.txt']);
  });

  it('fences absolute paths outside the project even though the model may read them', async () => {
    await inRun({ mode: 'full-access' }, async (context) => {
      const path = join(outside, 'secret.txt');
      const plugin = await h.callJson<Outcome>(
        HOST_TOOL,
        { name: 'read_file', arguments: { path } },
        context,
      );
      expect(plugin).toMatchObject({ ok: false, code: 'HOST_PATH_OUTSIDE_PROJECT' });
      const model = await h.call('read_file', { path }, context);
      expect(model.content).toContain('top secret');
    });
  });

  it('asks the approver for run_command in project-write, showing the plugin as the caller', async () => {
    const approver = new ScriptedApprover({ outcome: 'deny', reason: 'not from a plugin' });
    await inRun({ mode: 'project-write', approver }, async (context) => {
      const out = await h.callJson<Outcome>(
        HOST_TOOL,
        { name: 'run_command', arguments: { command: 'touch ran' } },
        context,
      );
      expect(out).toMatchObject({ ok: false, rpcCode: -32000, code: 'PERMISSION_DENIED' });
      expect(approver.requests[0]).toMatchObject({
        tool: 'mcp:host-client:host:run_command',
        effect: 'execute',
        arguments: { command: 'touch ran' },
      });
    });
    expect(await readdir(h.projectRoot)).not.toContain('ran');
    const allow = new ScriptedApprover({ outcome: 'allow' });
    await inRun({ mode: 'project-write', approver: allow }, async (context) => {
      const out = await h.callJson<Outcome>(
        HOST_TOOL,
        { name: 'run_command', arguments: { command: 'echo hi; touch ran' } },
        context,
      );
      expect(out).toMatchObject({ ok: true, result: { output: { exit_code: 0, stdout: 'hi\n' } } });
    });
    expect(await readdir(h.projectRoot)).toContain('ran');
  });

  it('asks before host writes in read-only mode and fails closed on a refusal', async () => {
    // The user allows the fixture's own (external-read) tool but refuses the write it asks for.
    const approver = new ScriptedApprover((request) =>
      request.tool.startsWith('mcp_')
        ? { outcome: 'allow' }
        : { outcome: 'deny', reason: 'read-only' },
    );
    await inRun({ mode: 'read-only', approver }, async (context) => {
      const out = await h.callJson<Outcome>(
        HOST_TOOL,
        { name: 'write_file', arguments: { path: 'w.txt', content: 'x' } },
        context,
      );
      expect(out).toMatchObject({ ok: false, rpcCode: -32000, code: 'PERMISSION_DENIED' });
      expect(approver.requests.map((r) => r.tool)).toEqual([
        HOST_TOOL,
        'mcp:host-client:host:write_file',
      ]);
    });
    expect(await readdir(h.projectRoot)).not.toContain('w.txt');
  });
});

describe('context', () => {
  it('returns a detached snapshot of the active run and pushes changes to the opted-in server', async () => {
    let runId = '';
    await inRun(
      { mode: 'project-write', model: new ScriptedModel(), sessionId: 's-1' },
      async (context, run) => {
        runId = run.runId;
        const out = await h.callJson<Outcome>(CONTEXT, {}, context);
        expect(out).toMatchObject({
          ok: true,
          result: {
            protocolVersion: '0.1.0',
            project: { root: h.projectRoot },
            run: { runId, sessionId: 's-1', model: 'scripted-1', permissionMode: 'project-write' },
            hostTools: [
              'list_files',
              'read_file',
              'search',
              'write_file',
              'edit_file',
              'run_command',
            ],
          },
        });
      },
    );
    // Best-effort pushes: the run's snapshot, then null when it ended.
    let seen: (string | null)[] = [];
    for (let i = 0; i < 100; i++) {
      seen = await inRun(
        { mode: 'full-access' },
        async (context) =>
          (await h.callJson<{ contextChanged: (string | null)[] }>(IDLE, {}, context))
            .contextChanged,
      );
      if (seen.includes(runId) && seen.indexOf(null, seen.indexOf(runId)) !== -1) break;
    }
    expect(seen).toContain(runId);
    expect(seen.slice(seen.indexOf(runId))).toContain(null);
  });
});

describe('context bounds', () => {
  it('sends at most the last 64 history messages, dropping the oldest while over 256 KiB', async () => {
    const small = (prefix: string, n: number) =>
      Array.from({ length: n }, (_, k) => ({ role: 'user', text: `${prefix}${k}` }));
    const all = small('m', LIMITS.contextMessages + 10);
    await inRun({ mode: 'project-write', history: () => all }, async (context) => {
      const out = await h.callJson<{ result: { run: { messages: { text: string }[] } } }>(
        CONTEXT,
        {},
        context,
      );
      expect(out.result.run.messages.map((m) => m.text)).toEqual(
        all.slice(-LIMITS.contextMessages).map((m) => m.text),
      );
    });
    // An oversized message inside the window takes every older one with it.
    const big = { role: 'user', text: 'x'.repeat(LIMITS.contextSnapshotBytes) };
    const withBig = [...small('m', 70), big, ...small('n', 10)];
    await inRun({ mode: 'project-write', history: () => withBig }, async (context) => {
      const out = await h.callJson<{ result: { run: { messages: { text: string }[] } } }>(
        CONTEXT,
        {},
        context,
      );
      expect(out.result.run.messages.map((m) => m.text)).toEqual(small('n', 10).map((m) => m.text));
    });
  });
});

describe('generic servers', () => {
  it('get no context notifications and no host services, but still sampling', async () => {
    await inRun({ mode: 'full-access', model: new ScriptedModel() }, async (context) => {
      const report = await h.callJson<{ contextChanged: unknown[] }>(
        'mcp_generic_idle_report',
        {},
        context,
      );
      expect(report.contextChanged).toEqual([]);
      const tool = await h.callJson<Outcome>(
        'mcp_generic_host_tool',
        { name: 'read_file', arguments: { path: 'README.md' } },
        context,
      );
      expect(tool).toMatchObject({ ok: false });
      expect(await h.callJson<Outcome>('mcp_generic_context', {}, context)).toMatchObject({
        ok: false,
      });
      expect(await h.callJson<Outcome>('mcp_generic_sample', {}, context)).toMatchObject({
        ok: true,
      });
    });
  });
});

describe('protocol and payload details', () => {
  it('refuses elicitation to a server that negotiated a protocol before 2025-06-18', async () => {
    const asker = new ScriptedAsker('x');
    await inRun({ mode: 'full-access', asker }, async (context) => {
      const out = await h.callJson<Outcome>(
        'mcp_old_elicit',
        {
          params: {
            message: 'm',
            requestedSchema: { type: 'object', properties: { a: { type: 'string' } } },
          },
        },
        context,
      );
      expect(out).toMatchObject({ ok: false, rpcCode: -32601 });
      expect(out.message).toContain('2025-06-18');
    });
    expect(asker.questions).toHaveLength(0);
  });

  it('shows the approver the complete outbound sampling payload, not a preview', async () => {
    const systemPrompt = `${'s'.repeat(10_000)}SYSTEM-SENTINEL`;
    const approver = new ScriptedApprover({ outcome: 'allow' });
    const model = new ScriptedModel();
    await inRun({ mode: 'project-write', approver, model }, async (context) => {
      const out = await h.callJson<Outcome>(SAMPLE, { chars: 20_000, systemPrompt }, context);
      expect(out.ok).toBe(true);
    });
    const args = approver.requests[0]?.arguments as {
      systemPrompt: string;
      messages: { text: string }[];
    };
    expect(args.systemPrompt).toBe(systemPrompt);
    expect(args.messages[0]?.text).toHaveLength(20_000);
    expect(model.requests[0]?.system).toBe(systemPrompt);
  });

  it('never puts provider credentials or approvers into the context snapshot', async () => {
    const secret = 'sk-live-0123456789abcdefSECRET';
    const model = Object.assign(new ScriptedModel(), {
      apiKey: secret,
      headers: { Authorization: `Bearer ${secret}` },
    });
    const approver = new ScriptedApprover({ outcome: 'allow' });
    await inRun({ mode: 'project-write', model, approver }, async (context) => {
      const out = await h.callJson<Outcome>(CONTEXT, {}, context);
      expect(out.ok).toBe(true);
      const text = JSON.stringify(out);
      expect(text).not.toContain(secret);
      expect(text).not.toContain('approve');
      expect(Object.keys(out.result ?? {}).sort()).toEqual([
        'hostTools',
        'project',
        'protocolVersion',
        'run',
      ]);
    });
  });

  it('kills a host run_command process group when the run is cancelled', async () => {
    const controller = new AbortController();
    const { run, context } = h.beginRun({ mode: 'full-access', signal: controller.signal });
    try {
      const call = h.call(
        HOST_TOOL,
        { name: 'run_command', arguments: { command: 'sleep 60 & echo $! > sleeper.pid; wait' } },
        context,
      );
      const pidFile = join(h.projectRoot, 'sleeper.pid');
      let pid = 0;
      for (let i = 0; i < 500 && pid === 0; i++) {
        pid = Number((await readFile(pidFile, 'utf8').catch(() => '')).trim()) || 0;
        if (pid === 0) await sleep(10);
      }
      expect(pid).toBeGreaterThan(0);
      controller.abort();
      await expect(call).rejects.toMatchObject({ code: 'CANCELLED' });
      let alive = true;
      for (let i = 0; i < 300 && alive; i++) {
        alive = running(pid);
        if (alive) await sleep(20);
      }
      expect(alive).toBe(false);
    } finally {
      run.end();
    }
  });
});

describe('elicitation', () => {
  const form = {
    message: 'Configure the thing',
    requestedSchema: {
      type: 'object',
      properties: {
        name: { type: 'string', title: 'Name' },
        count: { type: 'integer', minimum: 1, maximum: 10, default: 3 },
        ok: { type: 'boolean', default: true },
        colour: { type: 'string', enum: ['red', 'green'] },
        hero: {
          type: 'string',
          oneOf: [
            { const: 'h1', title: 'Superman' },
            { const: 'h2', title: 'Batman' },
          ],
        },
      },
      required: ['name', 'count', 'ok', 'colour', 'hero'],
    },
  };

  it('asks one primitive field at a time and returns typed content', async () => {
    const asker = new ScriptedAsker('Ada', 'many', '4', 'no', 'green', 'Batman');
    await inRun({ mode: 'full-access', asker }, async (context) => {
      const out = await h.callJson<Outcome>(ELICIT, { params: form }, context);
      expect(out).toMatchObject({
        ok: true,
        result: {
          action: 'accept',
          content: { name: 'Ada', count: 4, ok: false, colour: 'green', hero: 'h2' },
        },
      });
    });
    const questions = asker.questions;
    expect(questions[0]?.question.startsWith('Configure the thing')).toBe(true);
    expect(questions[1]?.defaultAnswer).toBe('3');
    expect(questions[2]?.question).toMatch(/whole number/); // re-asked after "many"
    expect(questions[3]?.options?.map((o) => o.label)).toEqual(['yes', 'no']);
    expect(questions[4]?.options?.map((o) => o.label)).toEqual(['red', 'green']);
    expect(questions[5]?.options?.map((o) => o.label)).toEqual(['Superman', 'Batman']);
  });

  it('fails after two re-asks of an invalid number', async () => {
    const asker = new ScriptedAsker('Ada', 'x', 'y', 'z');
    await inRun({ mode: 'full-access', asker }, async (context) => {
      const out = await h.callJson<Outcome>(ELICIT, { params: form }, context);
      expect(out).toMatchObject({ ok: false, rpcCode: -32602, code: 'ELICITATION_INVALID_ANSWER' });
    });
    expect(asker.questions).toHaveLength(1 + 1 + LIMITS.elicitationNumberRetries);
  });

  it('maps Esc to cancel and a refusal to decline, and fails cleanly when headless', async () => {
    await inRun(
      { mode: 'full-access', asker: new ScriptedAsker({ kind: 'cancelled' }) },
      async (context) => {
        expect(await h.callJson<Outcome>(ELICIT, { params: form }, context)).toMatchObject({
          ok: true,
          result: { action: 'cancel' },
        });
      },
    );
    await inRun(
      { mode: 'full-access', asker: new ScriptedAsker({ kind: 'declined' }) },
      async (context) => {
        expect(await h.callJson<Outcome>(ELICIT, { params: form }, context)).toMatchObject({
          ok: true,
          result: { action: 'decline' },
        });
      },
    );
    await inRun({ mode: 'full-access' }, async (context) => {
      expect(await h.callJson<Outcome>(ELICIT, { params: form }, context)).toMatchObject({
        ok: false,
        rpcCode: -32000,
        code: 'ELICITATION_NO_FRONTEND',
      });
    });
  });

  const manyProps = (n: number) =>
    Object.fromEntries(Array.from({ length: n }, (_, i) => [`f${i}`, { type: 'string' }]));
  it.each([
    ['a nested object', { a: { type: 'object', properties: { b: { type: 'string' } } } }],
    ['a multi-select of numbers', { a: { type: 'array', items: { type: 'number' } } }],
    ['17 fields', manyProps(LIMITS.elicitationFields + 1)],
    [
      '17 choices',
      {
        a: {
          type: 'string',
          enum: Array.from({ length: LIMITS.elicitationChoices + 1 }, (_, i) => `c${i}`),
        },
      },
    ],
  ])('rejects %s explicitly, asking nothing', async (_label, properties) => {
    const asker = new ScriptedAsker('x');
    await inRun({ mode: 'full-access', asker }, async (context) => {
      const out = await h.callJson<Outcome>(
        ELICIT,
        { params: { message: 'm', requestedSchema: { type: 'object', properties } } },
        context,
      );
      expect(out).toMatchObject({ ok: false, rpcCode: -32602, code: 'ELICITATION_UNSUPPORTED' });
    });
    expect(asker.questions).toHaveLength(0);
  });

  it('asks consent for URL-mode elicitation and rejects a non-web URL explicitly', async () => {
    const asker = new ScriptedAsker('accept');
    await inRun({ mode: 'full-access', asker }, async (context) => {
      const out = await h.callJson<Outcome>(
        ELICIT,
        {
          params: { mode: 'url', message: 'open', url: 'https://example.com', elicitationId: 'e1' },
        },
        context,
      );
      expect(out).toMatchObject({ ok: true, result: { action: 'accept' } });
      const file = await h.callJson<Outcome>(
        ELICIT,
        {
          params: { mode: 'url', message: 'open', url: 'file:///etc/passwd', elicitationId: 'e2' },
        },
        context,
      );
      expect(file).toMatchObject({ ok: false, rpcCode: -32602, code: 'ELICITATION_UNSUPPORTED' });
    });
    expect(asker.questions).toHaveLength(1);
    expect(asker.questions[0]?.question).toContain('URL: https://example.com/');
  });
});

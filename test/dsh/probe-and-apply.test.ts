/**
 * CLAT's era negotiation against DSH servers: the modern probe runs in a disposable process and,
 * when it fails, a fresh process does the legacy handshake. apply() must run once per served
 * process, and the live server must be the one that applied last.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ScriptedApprover } from '@clat/kernel/testing';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  clatDsh,
  clatDshBin,
  createDshHarness,
  DSH_FIXTURES,
  type DshHarness,
  ScriptedModel,
} from './harness.js';

let h: DshHarness | undefined;
let dir: string | undefined;
let packaged: string;

// The fixture is packaged once (a real `clat-dsh package`), so each served process starts from
// one pre-bundled file: the probe timing below then depends on apply(), not on bundling speed.
beforeAll(async () => {
  packaged = await mkdtemp(join(tmpdir(), 'clat-dsh-counter-pkg-'));
  const built = await clatDsh([
    'package',
    join(DSH_FIXTURES, 'apply-counter.mjs'),
    '--out',
    join(packaged, 'counter'),
    '--id',
    'dsh.counter',
    '--no-smoke',
  ]);
  expect(built.code, built.stderr).toBe(0);
});
afterAll(async () => {
  await rm(packaged, { recursive: true, force: true });
});

afterEach(async () => {
  await h?.close();
  h = undefined;
  if (dir !== undefined) await rm(dir, { recursive: true, force: true });
});

function eventsByPid(log: string): Map<number, string[]> {
  const byPid = new Map<number, string[]>();
  for (const line of log.split('\n').filter(Boolean)) {
    const [pid, event] = line.split(' ') as [string, string];
    byPid.set(Number(pid), [...(byPid.get(Number(pid)) ?? []), event]);
  }
  return byPid;
}

async function mountCounter(env: Record<string, string>) {
  dir = await mkdtemp(join(tmpdir(), 'clat-dsh-apply-'));
  const log = join(dir, 'apply.log');
  h = await createDshHarness([
    {
      name: 'counter',
      command: join(packaged, 'counter', 'server.mjs'),
      cwd: join(packaged, 'counter'),
      env: { APPLY_LOG: log, ...env },
    },
  ]);
  return log;
}

describe('apply() per served process', () => {
  it('answers the modern probe, so CLAT keeps the probe process and apply() runs exactly once', async () => {
    const log = await mountCounter({});
    const server = h?.servers.get('counter');
    const status = server?.status();
    expect(status, JSON.stringify(status)).toMatchObject({
      state: 'connected',
      era: 'modern',
      tools: 4,
    });
    // The plugin's console.log and raw stdout writes went to stderr, not into the protocol.
    const tail = status?.stderrTail.join('\n') ?? '';
    expect(tail).toContain('apply-counter loaded');
    expect(tail).toContain('apply-counter applying');
    expect(tail).toContain('raw stdout write');
    const pids = h?.factories.get('counter')?.spawnedPids ?? [];
    expect(pids).toHaveLength(1);
    expect(eventsByPid(await readFile(log, 'utf8'))).toEqual(
      new Map([[pids[0], ['apply-start', 'apply-done']]]),
    );
    await h?.close();
    h = undefined;
    // Closing the project scope ends the server: its cleanup ran once.
    expect(eventsByPid(await readFile(log, 'utf8')).get(pids[0] as number)).toEqual([
      'apply-start',
      'apply-done',
      'dispose',
    ]);
  });

  it('when apply() outlasts the 3 s probe, the fresh legacy process serves, and each process applied once', async () => {
    const log = await mountCounter({ APPLY_DELAY_MS: '4000' });
    const server = h?.servers.get('counter');
    const status = server?.status();
    expect(status, JSON.stringify(status)).toMatchObject({
      state: 'connected',
      era: 'legacy',
      tools: 4,
    });
    const pids = h?.factories.get('counter')?.spawnedPids ?? [];
    expect(pids).toHaveLength(2);
    const events = eventsByPid(await readFile(log, 'utf8'));
    for (const [, list] of events)
      expect(list.filter((event) => event === 'apply-start')).toHaveLength(1);
    expect(events.get(pids[1] as number)).toEqual(['apply-start', 'apply-done']);
    // The tool really runs in the second (live) process.
    const model = new ScriptedModel(() => 'legacy era answer');
    const { run, context } = h?.beginRun({ mode: 'full-access', model }) ?? ({} as never);
    try {
      const result = await h?.call('mcp_counter_pid', {}, context);
      expect(result?.structured).toEqual({ pid: pids[1] });
      // Sampling works on the legacy connection too (a plain server request during tools/call).
      const sampled = await h?.call('mcp_counter_sample', { q: 'legacy?' }, context);
      expect(sampled?.structured).toEqual({ text: 'legacy era answer' });
      expect(model.requests[0]?.messages).toEqual([{ role: 'user', text: 'legacy?' }]);
    } finally {
      run.end();
    }
  });

  it('runs the plugin cleanup once on SIGTERM and exits cleanly', async () => {
    dir = await mkdtemp(join(tmpdir(), 'clat-dsh-apply-'));
    const log = join(dir, 'apply.log');
    const child = spawn(
      process.execPath,
      [clatDshBin(), 'serve', join(DSH_FIXTURES, 'apply-counter.mjs')],
      {
        env: { ...process.env, APPLY_LOG: log },
        stdio: ['pipe', 'pipe', 'pipe'],
      },
    );
    const exited = new Promise<{ code: number | null; signal: string | null }>((resolve) =>
      child.once('exit', (code, signal) => resolve({ code, signal })),
    );
    try {
      // Serving starts after apply(); one round trip proves it.
      child.stdin.write(
        `${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '0' } } })}\n`,
      );
      await new Promise<void>((resolve) => child.stdout.once('data', () => resolve()));
      child.kill('SIGTERM');
      expect(await exited).toEqual({ code: 0, signal: null });
    } finally {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    }
    expect(eventsByPid(await readFile(log, 'utf8')).get(child.pid as number)).toEqual([
      'apply-start',
      'apply-done',
      'dispose',
    ]);
  });

  it('a cancelled CLAT call aborts the plugin tool signal in the server process', async () => {
    const log = await mountCounter({});
    const { run, context } = h?.beginRun({ mode: 'full-access' }) ?? ({} as never);
    const controller = new AbortController();
    try {
      const call = h?.call('mcp_counter_wait', {}, { ...context, signal: controller.signal });
      for (let i = 0; i < 400 && !(await readFile(log, 'utf8')).includes('wait-start'); i += 1) {
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      controller.abort();
      const settled = await call?.then(
        (result) => ({ isError: result.isError === true }),
        () => ({ isError: true }),
      );
      expect(settled).toEqual({ isError: true });
      for (let i = 0; i < 400 && !(await readFile(log, 'utf8')).includes('wait-aborted'); i += 1) {
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    } finally {
      run.end();
    }
    const pid = h?.factories.get('counter')?.spawnedPids[0] as number;
    expect(eventsByPid(await readFile(log, 'utf8')).get(pid)).toEqual([
      'apply-start',
      'apply-done',
      'wait-start',
      'wait-aborted',
    ]);
  });

  it('mirrors the run CLAT pushes (context/changed) into read-only ctx.sessions and ctx.agents', async () => {
    await mountCounter({});
    const model = new ScriptedModel();
    const { run, context } =
      h?.beginRun({
        mode: 'project-write',
        model,
        sessionId: 'session-7',
        approver: new ScriptedApprover({ outcome: 'allow' }),
      }) ?? ({} as never);
    try {
      const result = await h?.call('mcp_counter_session', {}, context);
      expect(result?.structured).toMatchObject({
        id: 'session-7',
        header: { origin: 'clat-host-mirror', model: 'scripted-1', project: h?.projectRoot },
        agents: 1,
        mutation: 'READ_ONLY_HOST_SERVICE',
      });
    } finally {
      run.end();
    }
  });
});

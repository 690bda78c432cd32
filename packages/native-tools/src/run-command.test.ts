import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { groupAlive, killTrackedGroups, pidAlive, trackedGroupCount } from '@clat/process';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { NATIVE_LIMITS } from './limits.js';
import { type Harness, harness, tempDirs } from './test-support.js';

const dirs = tempDirs();
let root: string;
let h: Harness;
const spawnedGroups: number[] = [];

async function waitForFile(path: string): Promise<string> {
  for (let i = 0; i < 500; i++) {
    const text = await readFile(path, 'utf8').catch(() => '');
    if (text.trim() !== '') return text;
    await sleep(10);
  }
  throw new Error(`${path} never appeared`);
}

beforeEach(async () => {
  root = await dirs.make('clat-run-');
  h = harness(root);
});
afterEach(async () => {
  for (const pgid of spawnedGroups.splice(0)) {
    try {
      process.kill(-pgid, 'SIGKILL');
    } catch {
      // gone
    }
  }
  await dirs.cleanup();
});

describe('run_command', () => {
  it('runs in the project root and reports exit code, stdout and stderr', async () => {
    const out = await h.ok('run_command', { command: 'pwd; echo oops >&2; exit 3' });
    expect(out).toMatchObject({
      exit_code: 3,
      signal: null,
      timed_out: false,
      stdout: `${root}\n`,
      stderr: 'oops\n',
      stdout_truncated: false,
      sandbox: 'none',
    });
  });

  it('keeps head and tail of large output', async () => {
    const out = await h.ok<{ stdout: string; stdout_truncated: boolean }>('run_command', {
      command: "printf 'HEAD'; head -c 200000 /dev/zero | tr '\\0' x; printf 'TAIL'",
    });
    expect(out.stdout_truncated).toBe(true);
    expect(out.stdout.startsWith('HEAD')).toBe(true);
    expect(out.stdout.endsWith('TAIL')).toBe(true);
    expect(Buffer.byteLength(out.stdout)).toBeLessThan(NATIVE_LIMITS.commandOutputBytes + 100);
  });

  it('kills the whole group, grandchildren included, on timeout', async () => {
    const pidFile = join(root, 'grandchild.pid');
    const out = await h.ok<{ timed_out: boolean; exit_code: number | null; signal: string | null }>(
      'run_command',
      { command: `sh -c 'echo $$ > ${pidFile}; exec sleep 60' & wait`, timeout_seconds: 1 },
    );
    expect(out.timed_out).toBe(true);
    expect(out.signal).toBe('SIGTERM');
    const grandchild = Number(await readFile(pidFile, 'utf8'));
    expect(pidAlive(grandchild)).toBe(false);
  });

  it('escalates to SIGKILL when the group ignores SIGTERM', async () => {
    const out = await h.ok<{ timed_out: boolean; signal: string | null }>('run_command', {
      command: "trap '' TERM; sleep 60",
      timeout_seconds: 1,
    });
    expect(out).toMatchObject({ timed_out: true, signal: 'SIGKILL' });
  });

  it('kills the group at once when the call is cancelled', async () => {
    const pidFile = join(root, 'child.pid');
    const controller = new AbortController();
    const call = h.call(
      'run_command',
      { command: `sleep 60 & echo $! > ${pidFile}; wait` },
      { signal: controller.signal },
    );
    const child = Number(await waitForFile(pidFile));
    expect(pidAlive(child)).toBe(true);
    controller.abort();
    await expect(call).rejects.toMatchObject({ code: 'CANCELLED' });
    expect(pidAlive(child)).toBe(false);
  });

  it('reaps processes left in the group after the shell exits', async () => {
    const pidFile = join(root, 'left.pid');
    const out = await h.ok<{ exit_code: number; killed_leftovers: boolean }>('run_command', {
      command: `(trap '' HUP; sleep 60 >/dev/null 2>&1 & echo $! > ${pidFile}); exit 0`,
    });
    expect(out.exit_code).toBe(0);
    expect(out.killed_leftovers).toBe(true);
    const left = Number(await readFile(pidFile, 'utf8'));
    spawnedGroups.push(left);
    expect(pidAlive(left)).toBe(false);
    expect(groupAlive(left)).toBe(false);
  });

  it('tracks running groups so a host exit can kill them, and forgets finished ones', async () => {
    const pidFile = join(root, 'tracked.pid');
    const before = trackedGroupCount();
    const call = h.call('run_command', { command: `sleep 60 & echo $! > ${pidFile}; wait` });
    const child = Number(await waitForFile(pidFile));
    expect(trackedGroupCount()).toBe(before + 1);
    // What the process 'exit' hook does:
    killTrackedGroups();
    const out = (await call).structured as { signal: string | null };
    expect(out.signal).toBe('SIGKILL');
    expect(pidAlive(child)).toBe(false);
    expect(trackedGroupCount()).toBe(0);
    await h.ok('run_command', { command: 'true' });
    expect(trackedGroupCount()).toBe(0);
  });

  it('refuses a required sandbox, empty commands and bad timeouts', async () => {
    expect(await h.failure('run_command', { command: 'true', sandbox: 'required' })).toBe(
      'NATIVE_SANDBOX_UNAVAILABLE',
    );
    expect(await h.failure('run_command', { command: '  ' })).toBe('NATIVE_INVALID_ARGUMENTS');
    expect(await h.failure('run_command', { command: 'true', timeout_seconds: 0 })).toBe(
      'NATIVE_INVALID_ARGUMENTS',
    );
    expect(await h.failure('run_command', { command: 'true', timeout_seconds: 601 })).toBe(
      'NATIVE_INVALID_ARGUMENTS',
    );
  });
});

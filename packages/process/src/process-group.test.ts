import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  groupAlive,
  groupMembers,
  killGroup,
  pidAlive,
  scanProcesses,
  signalGroup,
  waitGroupGone,
} from './process-group.js';
import {
  killTrackedGroups,
  trackedGroupCount,
  trackGroup,
  untrackGroup,
} from './tracked-groups.js';

function killError(code: string): NodeJS.ErrnoException {
  const error: NodeJS.ErrnoException = new Error(`kill ${code}`);
  error.code = code;
  return error;
}

describe('process-group liveness', () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it('reads EPERM as a live group (it exists, it is just not ours to signal)', () => {
    vi.spyOn(process, 'kill').mockImplementation(() => {
      throw killError('EPERM');
    });
    expect(signalGroup(424242, 0)).toBe(true);
  });

  it('reads ESRCH as a gone group', () => {
    vi.spyOn(process, 'kill').mockImplementation(() => {
      throw killError('ESRCH');
    });
    expect(signalGroup(424242, 0)).toBe(false);
    expect(groupAlive(424242)).toBe(false);
  });

  it.skipIf(process.platform === 'win32')(
    'sees a real detached group alive, then gone after SIGKILL',
    async () => {
      const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], {
        detached: true,
        stdio: 'ignore',
      });
      const pgid = child.pid as number;
      try {
        expect(groupAlive(pgid)).toBe(true);
        expect(signalGroup(pgid, 'SIGKILL')).toBe(true);
        expect(await waitGroupGone(pgid, 5000)).toBe(true);
      } finally {
        signalGroup(pgid, 'SIGKILL');
      }
    },
  );
});

describe('pidAlive', () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it('sees this process alive and a pid that answers ESRCH gone', () => {
    expect(pidAlive(process.pid)).toBe(true);
    vi.spyOn(process, 'kill').mockImplementation(() => {
      throw killError('ESRCH');
    });
    expect(pidAlive(process.pid)).toBe(false);
  });

  it.skipIf(process.platform !== 'linux')(
    'counts a zombie as gone although it still answers the probe',
    async () => {
      // `sh` starts a child, prints its pid and becomes `sleep 5`, which never reaps it. The
      // child exits only once its parent is `sleep` (a shell might still reap it), and then
      // stays a zombie for as long as its parent runs.
      const script =
        'p=$$; (while [ "$(cat /proc/$p/comm)" != sleep ]; do sleep 0.01; done) & echo $!; exec sleep 5';
      const parent = spawn('sh', ['-c', script], {
        stdio: ['ignore', 'pipe', 'ignore'],
      });
      try {
        const zombie = await new Promise<number>((resolvePid, rejectPid) => {
          parent.once('error', rejectPid);
          parent.stdout.once('data', (chunk: Buffer) => resolvePid(Number(String(chunk).trim())));
        });
        const state = () => {
          const stat = readFileSync(`/proc/${zombie}/stat`, 'utf8');
          return stat.charAt(stat.lastIndexOf(')') + 2);
        };
        const deadline = Date.now() + 5000;
        while (state() !== 'Z' && Date.now() < deadline) {
          await new Promise((resolveWait) => setTimeout(resolveWait, 10));
        }
        expect(state()).toBe('Z');
        expect(() => process.kill(zombie, 0)).not.toThrow();
        expect(pidAlive(zombie)).toBe(false);
        expect(pidAlive(parent.pid as number)).toBe(true);
      } finally {
        parent.kill('SIGKILL');
      }
    },
  );
});

describe.skipIf(process.platform !== 'linux')('scanProcesses', () => {
  it('finds the processes a test picks, leaves this one out, and stops at the first with first', async () => {
    const sleepers = [1, 2, 3].map(() => spawn('sleep', ['30'], { stdio: 'ignore' }).pid as number);
    try {
      const ours = new Set(sleepers);
      const tested: number[] = [];
      const all = await scanProcesses(async (pid) => {
        tested.push(pid);
        return ours.has(pid);
      });
      expect(all).toEqual([...sleepers].sort((a, b) => a - b));
      expect(tested).not.toContain(process.pid);
      // Every process was looked at once; a test that resolves late does not lose its answer.
      expect(new Set(tested).size).toBe(tested.length);
      // The first process /proc lists matches: only the tests already running (at most the
      // eight of one round) finish after it, and the rest of the machine is never read.
      const match = tested[0];
      let calls = 0;
      const first = await scanProcesses(
        async (pid) => {
          calls++;
          return pid === match;
        },
        { first: true },
      );
      expect(first).toEqual([match]);
      expect(tested.length).toBeGreaterThan(16);
      expect(calls).toBeLessThanOrEqual(16);
    } finally {
      for (const pid of sleepers) process.kill(pid, 'SIGKILL');
    }
  });
});

/** A detached node process (its own group leader) that ignores SIGTERM when `stubborn`. */
function detachedSleeper(stubborn: boolean): number {
  const script = stubborn
    ? "process.on('SIGTERM', () => {}); setInterval(() => {}, 1000)"
    : 'setInterval(() => {}, 1000)';
  const child = spawn(process.execPath, ['-e', script], { detached: true, stdio: 'ignore' });
  return child.pid as number;
}

/**
 * A detached process that ignores SIGTERM, resolved only once its handler is installed: on a
 * loaded machine Node's start alone can outlast any fixed wait, and a SIGTERM that lands before
 * the handler would end the child at once and prove nothing about escalation.
 */
function stubbornSleeperReady(): Promise<number> {
  const script =
    "process.on('SIGTERM', () => {}); process.stdout.write('ready\\n'); setInterval(() => {}, 1000)";
  const child = spawn(process.execPath, ['-e', script], {
    detached: true,
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  return new Promise((resolveReady, rejectReady) => {
    child.once('error', rejectReady);
    child.stdout.once('data', () => {
      child.stdout.destroy();
      resolveReady(child.pid as number);
    });
  });
}

describe.skipIf(process.platform === 'win32')('killGroup', () => {
  it('ends a group with SIGTERM when that suffices', async () => {
    const pgid = detachedSleeper(false);
    try {
      expect(groupMembers(pgid)).toContain(pgid);
      expect(await killGroup(pgid, 5000)).toBe(true);
      expect(groupAlive(pgid)).toBe(false);
    } finally {
      signalGroup(pgid, 'SIGKILL');
    }
  });

  it('escalates to SIGKILL after the grace for a group that ignores SIGTERM', async () => {
    const pgid = await stubbornSleeperReady();
    try {
      const started = Date.now();
      expect(await killGroup(pgid, 300)).toBe(true);
      expect(Date.now() - started).toBeGreaterThanOrEqual(300);
      expect(groupAlive(pgid)).toBe(false);
    } finally {
      signalGroup(pgid, 'SIGKILL');
    }
  });

  it('is a no-op for a group that is already gone', async () => {
    const pgid = detachedSleeper(false);
    signalGroup(pgid, 'SIGKILL');
    await waitGroupGone(pgid, 5000);
    expect(await killGroup(pgid, 5000)).toBe(true);
  });
});

describe.skipIf(process.platform === 'win32')('tracked groups', () => {
  it('killTrackedGroups SIGKILLs every tracked group and forgets them', async () => {
    const a = detachedSleeper(true);
    const b = detachedSleeper(false);
    try {
      const before = trackedGroupCount();
      trackGroup(a);
      trackGroup(b);
      trackGroup(b);
      expect(trackedGroupCount()).toBe(before + 2);
      untrackGroup(b);
      expect(trackedGroupCount()).toBe(before + 1);
      trackGroup(b);
      killTrackedGroups();
      expect(trackedGroupCount()).toBe(0);
      expect(await waitGroupGone(a, 5000)).toBe(true);
      expect(await waitGroupGone(b, 5000)).toBe(true);
    } finally {
      signalGroup(a, 'SIGKILL');
      signalGroup(b, 'SIGKILL');
    }
  });
});

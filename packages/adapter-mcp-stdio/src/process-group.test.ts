import { spawn } from 'node:child_process';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { groupAlive, signalGroup, waitGroupGone } from './process-group.js';

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

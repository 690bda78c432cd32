import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { describe, expect, it } from 'vitest';
import { lockHolderAlive, processAlive, processStartedAt } from './process-alive.js';

describe('processAlive', () => {
  it('is true for a running process and false once it has exited', async () => {
    expect(processAlive(process.pid)).toBe(true);
    const child = spawn(process.execPath, ['-e', '']);
    const pid = child.pid as number;
    await once(child, 'exit');
    expect(processAlive(pid)).toBe(false);
  });

  it('counts a process of another user (EPERM) as running', () => {
    // pid 1 runs as root; for a non-root user signal 0 answers EPERM, for root it succeeds.
    expect(processAlive(1)).toBe(true);
  });
});

describe('lockHolderAlive', () => {
  it('holds for a running process that started before the lock was written', () => {
    const started = processStartedAt(process.pid);
    if (process.platform === 'linux') {
      // /proc's boot time has whole seconds and ticks are 10 ms: close to the process's start.
      expect(Math.abs((started as number) - (Date.now() - process.uptime() * 1000))).toBeLessThan(
        1_500,
      );
    }
    expect(lockHolderAlive(process.pid, Date.now())).toBe(true);
  });

  it('does not for a gone process, nor for one that only got the pid after the lock', async () => {
    const child = spawn(process.execPath, ['-e', '']);
    const pid = child.pid as number;
    await once(child, 'exit');
    expect(lockHolderAlive(pid, Date.now())).toBe(false);
    // This process in a lock written two days ago: the pid's process then was another one.
    expect(lockHolderAlive(process.pid, Date.now() - 2 * 86_400_000)).toBe(
      process.platform !== 'linux',
    );
  });
});

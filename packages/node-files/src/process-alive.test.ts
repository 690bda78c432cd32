import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { describe, expect, it } from 'vitest';
import { processAlive } from './process-alive.js';

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

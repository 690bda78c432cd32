import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { pidAlive } from '@clat/process';
import { afterEach, describe, expect, it } from 'vitest';
import { SERVER_TAG_ENV, sweepDetached, taggedProcesses } from './detached-sweep.js';

const started: number[] = [];

/** A detached, tagged process that runs until killed. */
function tagged(tag: string): number {
  const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 60000)'], {
    detached: true,
    stdio: 'ignore',
    env: { ...process.env, [SERVER_TAG_ENV]: tag },
  });
  child.unref();
  started.push(child.pid as number);
  return child.pid as number;
}

async function until(check: () => Promise<boolean>): Promise<void> {
  for (let i = 0; i < 250 && !(await check()); i++) {
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

afterEach(() => {
  for (const pid of started.splice(0)) if (pidAlive(pid)) process.kill(pid, 'SIGKILL');
});

describe.runIf(process.platform === 'linux')('sweepDetached', () => {
  it('kills the tagged processes and returns only once they are gone', async () => {
    const tag = randomUUID();
    const pids = [tagged(tag), tagged(tag)].sort((a, b) => a - b);
    const other = tagged(randomUUID());
    await until(async () => (await taggedProcesses(tag)).length === 2);
    const swept = await sweepDetached(tag);
    expect(swept).toEqual({ killed: pids, left: [] });
    // Gone when it returns, not a moment later: SIGKILL is asynchronous, the sweep waits.
    expect(pids.filter(pidAlive)).toEqual([]);
    // Another server's tag is not touched.
    expect(pidAlive(other)).toBe(true);
  });

  it('returns at once when nothing carries the tag', async () => {
    expect(await sweepDetached(randomUUID())).toEqual({ killed: [], left: [] });
  });
});

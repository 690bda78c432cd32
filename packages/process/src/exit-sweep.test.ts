import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { killTaggedSync } from './exit-sweep.js';
import { pidAlive } from './process-group.js';

/** Resolves once `pid` is gone (false after `ms`): SIGKILL is delivered asynchronously. */
async function gone(pid: number, ms = 5_000): Promise<boolean> {
  const end = Date.now() + ms;
  while (pidAlive(pid)) {
    if (Date.now() > end) return false;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return true;
}

describe.skipIf(process.platform !== 'linux')('killTaggedSync', () => {
  it('kills the processes whose environment holds the entry, and only those', async () => {
    const tag = `CLAT_TEST_TAG=${randomUUID()}`;
    const [name, value] = tag.split('=') as [string, string];
    const start = (env: NodeJS.ProcessEnv) =>
      spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], {
        detached: true,
        stdio: 'ignore',
        env,
      }).pid as number;
    const tagged = start({ ...process.env, [name]: value });
    // The same text as a longer value, and under another name: not the entry.
    const longer = start({ ...process.env, [name]: `${value}-more` });
    const other = start({ ...process.env, [`X_${name}`]: value });
    try {
      // Until its environment is readable, a child just spawned is still the forked Node.
      const end = Date.now() + 5_000;
      let killed: number[] = [];
      while (killed.length === 0 && Date.now() < end) {
        killed = killTaggedSync([tag]);
        if (killed.length === 0) await new Promise((resolve) => setTimeout(resolve, 20));
      }
      expect(killed).toEqual([tagged]);
      expect(await gone(tagged)).toBe(true);
      expect([pidAlive(longer), pidAlive(other)]).toEqual([true, true]);
      expect(killTaggedSync([])).toEqual([]);
    } finally {
      for (const pid of [tagged, longer, other]) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          // Gone.
        }
      }
    }
  });
});

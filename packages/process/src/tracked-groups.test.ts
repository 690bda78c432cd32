import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { pidAlive } from './process-group.js';

// The host runs the built package, as `clat` runs its bundle (the test task builds it first).
const DIST = fileURLToPath(new URL('../dist/index.js', import.meta.url));

/**
 * A host that starts a tracked group and a daemon outside it (as a server's `setsid()` child:
 * only its environment tag finds it), registers the daemon's sweep, prints both pids, then dies
 * of an uncaught exception: it leaves through `exit`, never through an ending signal.
 */
const HOST = `
import { spawn } from 'node:child_process';
import { onHostEnding, trackGroup } from ${JSON.stringify(DIST)};
const start = (env) =>
  spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { detached: true, stdio: 'ignore', env }).pid;
const group = start(process.env);
trackGroup(group);
const tag = 'CLAT_TEST_DAEMON_TAG=' + process.pid;
const daemon = start({ ...process.env, CLAT_TEST_DAEMON_TAG: String(process.pid) });
onHostEnding(async () => {}, tag);
process.stdout.write(JSON.stringify([group, daemon]) + '\\n');
// Once the daemon's environment is its own (after exec), as a server's daemon is long before.
setTimeout(() => { throw new Error('the host crashed'); }, 300);
`;

async function gone(pid: number, ms = 5_000): Promise<boolean> {
  const end = Date.now() + ms;
  while (pidAlive(pid)) {
    if (Date.now() > end) return false;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return true;
}

describe.skipIf(process.platform !== 'linux')('the exit hook', () => {
  it('kills the tracked groups and the tagged daemons when the host dies of an error', async () => {
    const host = spawn(process.execPath, ['--input-type=module', '-e', HOST], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    host.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      out += chunk;
    });
    host.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      err += chunk;
    });
    const code = await new Promise<number | null>((resolve) => host.on('close', resolve));
    const pids = JSON.parse(out) as number[];
    try {
      expect(code).toBe(1);
      expect(err).toContain('the host crashed');
      for (const pid of pids) expect(await gone(pid), `pid ${pid} outlived the host`).toBe(true);
    } finally {
      for (const pid of pids) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          // Gone.
        }
      }
    }
  });
});

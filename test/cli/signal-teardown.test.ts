/**
 * Ctrl-C (SIGINT), SIGTERM or SIGHUP reaching `clat` while a command that does not handle them
 * waits for its servers (`clat tools` during a slow handshake): the servers run in sessions of
 * their own, so the terminal's signal never reaches them, and one that ignores its closed stdin
 * used to outlive clat. Now clat kills them and still ends by the signal; a server's setsid()
 * daemon, out of reach of a group kill, is found by its tag and killed too.
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CLAT_BIN, STDIO_FIXTURES, useCliSandbox } from './support.js';
import { hasTmux, TmuxSession } from './tmux.js';

const sandbox = useCliSandbox();

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function until(test: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 600; i++) {
    if (test()) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`timed out waiting for ${what}`);
}

/** `clat tools --trust` in the sandbox, and how it ended (exit code or signal). */
function startTools() {
  const clat = spawn(process.execPath, [CLAT_BIN, 'tools', '--trust'], {
    cwd: sandbox.project,
    env: sandbox.env(),
    stdio: 'ignore',
  });
  const ended = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    clat.on('exit', (code, signal) => resolve({ code, signal })),
  );
  return { clat, ended };
}

describe('a signal while clat waits for its servers', () => {
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    it(`${signal}: the server that ignores its closed stdin is killed, and clat ends by the signal`, async () => {
      const marker = join(sandbox.root, `stubborn-${signal}.pid`);
      // Never answers the handshake, and outlives a closed stdin.
      const script = `require('fs').writeFileSync(${JSON.stringify(marker)}, String(process.pid)); process.stdin.resume(); process.stdin.on('end', () => {}); setInterval(() => {}, 1000);`;
      await sandbox.writeMcp({
        mcpServers: { stubborn: { command: process.execPath, args: ['-e', script] } },
      });
      const { clat, ended } = startTools();
      await until(() => existsSync(marker), 'the server to start');
      const server = Number(readFileSync(marker, 'utf8'));
      expect(alive(server)).toBe(true);
      clat.kill(signal);
      expect(await ended).toEqual({ code: null, signal });
      await until(() => !alive(server), `the server (pid ${server}) to be gone`);
    });
  }

  it("SIGTERM: a connected server's setsid() daemon goes with it", async () => {
    const marker = join(sandbox.root, 'stubborn.pid');
    const script = `require('fs').writeFileSync(${JSON.stringify(marker)}, String(process.pid)); process.stdin.resume(); setInterval(() => {}, 1000);`;
    // "family" connects and has started its grandchildren and daemon (each carries the sandbox
    // marker in its argv); "stubborn" keeps clat waiting.
    await sandbox.writeMcp({
      mcpServers: {
        // The marker as a bare word: the grandchildren are `node -e … <marker>`, where a word
        // starting with "--" would be taken for a Node option.
        family: {
          command: process.execPath,
          args: [join(STDIO_FIXTURES, 'grandchildren.mjs'), sandbox.marker],
        },
        stubborn: { command: process.execPath, args: ['-e', script] },
      },
    });
    const { clat, ended } = startTools();
    // The server, its two grandchildren and the daemon.
    await until(
      () => existsSync(marker) && sandbox.survivors().length >= 4,
      'the servers to start',
    );
    clat.kill('SIGTERM');
    expect(await ended).toEqual({ code: null, signal: 'SIGTERM' });
    // The daemon included: it left the server's group, so only the tag sweep reaches it.
    await until(() => sandbox.survivors().length === 0, 'every server process to be gone');
  });
});

describe.skipIf(!hasTmux())('the terminal window closing under a session (tmux)', () => {
  // The session crashed on readline's unhandled EIO as the terminal went away, past its
  // teardown, and a server's setsid() daemon outlived it.
  it('ends the session without a crash, and every server process goes, the daemon included', async () => {
    await sandbox.writeMcp({
      mcpServers: {
        family: {
          command: process.execPath,
          args: [join(STDIO_FIXTURES, 'grandchildren.mjs'), sandbox.marker],
        },
      },
    });
    const errors = join(sandbox.root, 'session.err');
    const tmux = new TmuxSession(`clat-window-${process.pid}-${Date.now()}`);
    try {
      tmux.start(
        ['sh', '-c', `exec "$0" "$1" --trust 2>"$2"`, process.execPath, CLAT_BIN, errors],
        sandbox.project,
        { CLAT_HOME: sandbox.home, NO_COLOR: '1' },
      );
      await tmux.waitFor('1 connected');
      await until(() => sandbox.survivors().length >= 3, 'the server family to start');
    } finally {
      tmux.kill();
    }
    await until(() => sandbox.survivors().length === 0, 'every server process to be gone');
    expect(readFileSync(errors, 'utf8')).not.toMatch(/Unhandled|Assertion failed|EIO/);
  });
});

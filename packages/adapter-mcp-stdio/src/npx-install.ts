/**
 * Installs what an `npx` server runs into npx's cache before its first start, so that start runs
 * from the cache instead of downloading inside the handshake's 10 s (`launcher-hint.ts` says why
 * a download there never finishes). A host runs it where a person waits anyway: `clat mcp add`
 * on a terminal. npm runs with the server's working directory and environment, in a process
 * group of its own, tracked so it never outlives the host.
 * @module
 */
import { spawn } from 'node:child_process';
import { basename, dirname, join } from 'node:path';
import { killGroup, trackGroup, untrackGroup } from '@clat/process';
import type { NpxInstall } from './launcher-hint.js';

export { type NpxInstall, npxInstall, npxInstallCommand } from './launcher-hint.js';
/** Where the server, and so the install, runs (`server-cwd.ts` has no transport code). */
export { resolveServerCwd } from './server-cwd.js';

/** How long an install may take before it is stopped (npm's own fetch retries fit in it). */
export const NPX_INSTALL_TIMEOUT_MS = 300_000;
/** npm's output kept for a failure's reason: its last lines, each cut to this length. */
const KEPT_LINES = 12;
const LINE_CHARS = 400;

export interface NpxInstallOptions {
  /** The server's command (`npx`, or a path to it: npm is taken from the same directory). */
  command: string;
  /** The server's working directory: npm reads the `.npmrc` there, as npx would. */
  cwd: string;
  /** The server's environment (the host's, with the entry's `env`). */
  env: Readonly<Record<string, string | undefined>>;
  /** Aborting stops npm (its whole group): the result is `cancelled`. */
  signal?: AbortSignal;
  timeoutMs?: number;
}

export type NpxInstallResult =
  | { outcome: 'installed'; ms: number }
  | { outcome: 'cancelled' }
  /** `reason` is one clause; `output` npm's last lines (untrusted: sanitise before showing). */
  | { outcome: 'failed'; reason: string; output: string[] };

/** The npm beside an npx given as a path, else the one on PATH. */
function npmFor(command: string): string {
  if (!command.includes('/') && !command.includes('\\')) return 'npm';
  const windows = basename(command).toLowerCase() === 'npx.cmd';
  return join(dirname(command), windows ? 'npm.cmd' : 'npm');
}

/**
 * Runs npm with `install`'s arguments (`npxInstall(command, args)` of the server's npx line: the
 * caller has it already, to say what it installs). Never throws for npm's own failures: they come
 * back as `failed` with npm's last lines.
 */
export async function installNpxPackages(
  install: NpxInstall,
  options: NpxInstallOptions,
): Promise<NpxInstallResult> {
  if (options.signal?.aborted === true) return { outcome: 'cancelled' };
  const started = performance.now();
  const lines: string[] = [];
  let partial = '';
  const keep = (chunk: Buffer) => {
    const text = partial + chunk.toString('utf8');
    const split = text.split(/\r?\n/);
    partial = (split.pop() ?? '').slice(-LINE_CHARS);
    for (const line of split) {
      if (line.trim() === '') continue;
      lines.push(line.slice(0, LINE_CHARS));
      if (lines.length > KEPT_LINES) lines.shift();
    }
  };
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(options.env)) {
    if (value !== undefined) env[name] = value;
  }
  const child = spawn(npmFor(options.command), install.args, {
    cwd: options.cwd,
    env,
    // Its own group: Ctrl-C reaches the host, which stops the whole install (npm and whatever
    // install scripts it runs) by the group, and an abrupt host exit kills it (tracked).
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const pid = child.pid;
  if (pid !== undefined) trackGroup(pid);
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  let stopped: 'cancelled' | 'timeout' | undefined;
  const stop = (why: 'cancelled' | 'timeout') => {
    stopped ??= why;
    if (pid !== undefined) void killGroup(pid, 1_000);
  };
  const onAbort = () => stop('cancelled');
  options.signal?.addEventListener('abort', onAbort, { once: true });
  const timeoutMs = options.timeoutMs ?? NPX_INSTALL_TIMEOUT_MS;
  const timer = setTimeout(() => stop('timeout'), timeoutMs);
  try {
    const ended = await new Promise<{ code: number | null; error?: Error }>((resolve) => {
      child.once('error', (error) => resolve({ code: null, error }));
      child.once('close', (code) => resolve({ code }));
    });
    if (partial.trim() !== '') lines.push(partial);
    if (stopped === 'cancelled') return { outcome: 'cancelled' };
    const output = lines.slice(-KEPT_LINES);
    if (stopped === 'timeout') {
      const reason = `npm did not finish within ${Math.round(timeoutMs / 1000)} s`;
      return { outcome: 'failed', reason, output };
    }
    if (ended.error !== undefined) {
      const reason = `cannot run ${npmFor(options.command)}: ${ended.error.message}`;
      return { outcome: 'failed', reason, output };
    }
    if (ended.code !== 0) {
      return { outcome: 'failed', reason: `npm exited with code ${ended.code}`, output };
    }
    return { outcome: 'installed', ms: performance.now() - started };
  } finally {
    clearTimeout(timer);
    options.signal?.removeEventListener('abort', onAbort);
    if (pid !== undefined) {
      // Install scripts it started may still run in its group: they end with it.
      await killGroup(pid, 1_000);
      untrackGroup(pid);
    }
  }
}

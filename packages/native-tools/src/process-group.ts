/**
 * One-shot commands in their own process group: the shell and everything it starts can be
 * signalled together, so a timeout, a cancel or the end of the shell leaves nothing behind.
 * @module
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { LIMITS } from '@clat/kernel';

/** Keeps the head and the tail of a stream, dropping the middle once over `limit` bytes. */
export class BoundedOutput {
  readonly #half: number;
  #head = Buffer.alloc(0);
  #tail: Buffer[] = [];
  #tailBytes = 0;
  #total = 0;

  constructor(limit: number) {
    this.#half = Math.floor(limit / 2);
  }

  push(chunk: Buffer): void {
    this.#total += chunk.length;
    let rest = chunk;
    if (this.#head.length < this.#half) {
      const take = Math.min(this.#half - this.#head.length, rest.length);
      this.#head = Buffer.concat([this.#head, rest.subarray(0, take)]);
      rest = rest.subarray(take);
    }
    if (rest.length === 0) return;
    this.#tail.push(rest);
    this.#tailBytes += rest.length;
    while (this.#tailBytes - (this.#tail[0]?.length ?? 0) >= this.#half) {
      this.#tailBytes -= (this.#tail.shift() as Buffer).length;
    }
  }

  get truncated(): boolean {
    return this.#total > this.#head.length + this.#tailBytes;
  }

  get totalBytes(): number {
    return this.#total;
  }

  text(): string {
    let tail = Buffer.concat(this.#tail);
    if (tail.length > this.#half) tail = tail.subarray(tail.length - this.#half);
    if (!this.truncated) return Buffer.concat([this.#head, tail]).toString('utf8');
    const dropped = this.#total - this.#head.length - tail.length;
    return `${this.#head.toString('utf8')}\n… [${dropped} bytes omitted] …\n${tail.toString('utf8')}`;
  }
}

export interface GroupRunOptions {
  shell: string;
  command: string;
  cwd: string;
  env: Record<string, string | undefined>;
  timeoutMs: number;
  outputBytes: number;
  signal: AbortSignal;
  /** Grace between SIGTERM and SIGKILL of the group. */
  graceMs?: number;
}

export interface GroupRunResult {
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  timedOut: boolean;
  cancelled: boolean;
  stdout: BoundedOutput;
  stderr: BoundedOutput;
  /** Members of the group still alive after the shell exited (then killed). */
  leftovers: boolean;
}

/** Live (non-zombie) members of group `pgid`, from /proc; undefined where /proc is missing. */
function liveMembersFromProc(pgid: number): number | undefined {
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return undefined;
  }
  let live = 0;
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue; // exited meanwhile
    }
    // Fields after the parenthesised command: state ppid pgrp …
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (Number(fields[2]) === pgid && fields[0] !== 'Z' && fields[0] !== 'X') live++;
  }
  return live;
}

/**
 * True while any process of group `pgid` is alive. Zombies do not count: an orphan killed in
 * a container whose init reaps slowly must not hold the caller for the whole grace period.
 */
export function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
  const live = process.platform === 'linux' ? liveMembersFromProc(pgid) : undefined;
  return live === undefined ? true : live > 0;
}

function signalGroup(pgid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pgid, signal);
  } catch {
    // already gone
  }
}

const POLL_MS = 20;

// Groups of commands still running; killed if the host exits without waiting for them.
const liveGroups = new Set<number>();
let exitHookInstalled = false;

/** SIGKILLs every tracked group (the host is exiting). Exported for tests. */
export function killTrackedGroups(): void {
  for (const pgid of liveGroups) signalGroup(pgid, 'SIGKILL');
  liveGroups.clear();
}

function track(pgid: number): void {
  liveGroups.add(pgid);
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    process.once('exit', killTrackedGroups);
  }
}

/** Number of command groups currently tracked (tests). */
export function trackedGroupCount(): number {
  return liveGroups.size;
}

/** SIGTERM the group, wait up to `graceMs` for it to empty, then SIGKILL. */
export async function killGroup(pgid: number, graceMs: number): Promise<void> {
  if (!groupAlive(pgid)) return;
  signalGroup(pgid, 'SIGTERM');
  const deadline = Date.now() + graceMs;
  while (groupAlive(pgid) && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
  if (groupAlive(pgid)) signalGroup(pgid, 'SIGKILL');
}

/** Runs `shell -c command` in a new process group and always empties the group before resolving. */
export function runInProcessGroup(options: GroupRunOptions): Promise<GroupRunResult> {
  const graceMs = options.graceMs ?? LIMITS.shutdownGraceMs;
  return new Promise((resolve, reject) => {
    let child: ChildProcess;
    try {
      child = spawn(options.shell, ['-c', options.command], {
        cwd: options.cwd,
        env: options.env,
        detached: true,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
    } catch (error) {
      reject(error);
      return;
    }
    const stdout = new BoundedOutput(options.outputBytes);
    const stderr = new BoundedOutput(options.outputBytes);
    child.stdout?.on('data', (chunk: Buffer) => stdout.push(chunk));
    child.stderr?.on('data', (chunk: Buffer) => stderr.push(chunk));
    let timedOut = false;
    let cancelled = false;
    let settled = false;
    const pgid = child.pid;
    if (pgid !== undefined) track(pgid);
    const stop = (why: 'timeout' | 'cancel') => {
      if (pgid === undefined) return;
      if (why === 'timeout') timedOut = true;
      else cancelled = true;
      void killGroup(pgid, graceMs);
    };
    const timer = setTimeout(() => stop('timeout'), options.timeoutMs);
    const onAbort = () => stop('cancel');
    if (options.signal.aborted) onAbort();
    else options.signal.addEventListener('abort', onAbort, { once: true });
    const cleanup = () => {
      clearTimeout(timer);
      options.signal.removeEventListener('abort', onAbort);
    };
    child.once('error', (error) => {
      if (settled) return;
      settled = true;
      cleanup();
      reject(error);
    });
    child.once('exit', (code, signal) => {
      void (async () => {
        cleanup();
        // The shell is gone; anything it left in its group is killed so the call owns no process.
        const leftovers = pgid !== undefined && groupAlive(pgid);
        if (leftovers && pgid !== undefined) await killGroup(pgid, graceMs);
        // Output pipes close once every writer is gone; bound the wait for escaped writers.
        await Promise.race([
          Promise.all(
            [child.stdout, child.stderr].map(
              (stream) =>
                new Promise<void>((done) => {
                  if (stream === null || stream.readableEnded || stream.destroyed) done();
                  else stream.once('close', () => done());
                }),
            ),
          ),
          new Promise<void>((done) => setTimeout(done, graceMs).unref()),
        ]);
        child.stdout?.destroy();
        child.stderr?.destroy();
        if (pgid !== undefined && !groupAlive(pgid)) liveGroups.delete(pgid);
        if (settled) return;
        settled = true;
        resolve({ exitCode: code, signal, timedOut, cancelled, stdout, stderr, leftovers });
      })();
    });
  });
}

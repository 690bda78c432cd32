/**
 * One-shot commands in their own process group: the shell and everything it starts can be
 * signalled together, so a timeout, a cancel or the end of the shell leaves nothing behind.
 * @module
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { LIMITS } from '@clat/kernel';
import { groupAlive, killGroup, trackGroup, untrackGroup } from '@clat/process';

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
    if (pgid !== undefined) trackGroup(pgid);
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
        if (pgid !== undefined && !groupAlive(pgid)) untrackGroup(pgid);
        if (settled) return;
        settled = true;
        resolve({ exitCode: code, signal, timedOut, cancelled, stdout, stderr, leftovers });
      })();
    });
  });
}

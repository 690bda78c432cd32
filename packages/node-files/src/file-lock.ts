/**
 * A lock file for read-modify-write edits that several processes make to one file: two
 * `clat mcp add` at once, two refreshes of one OAuth token. Without it each reads the old file and
 * the last rename wins, so the other's change is lost while both report success.
 *
 * The lock holds `pid:token`, appears whole (written to a temporary sibling and linked into place,
 * so it is never seen empty) and is removed only by its holder, or by a process taking over a lock
 * whose holder is gone. A live holder never loses it (a stopped one is reported busy, never
 * overwritten: its write would drop the change made meanwhile). Taking over is judged on one
 * descriptor (inode, age and content together) and done under a guard file (`<lock>.takeover`),
 * so two processes taking over never remove a lock published in between: a waiter that read a
 * dead holder's lock must not remove the live one that replaced it.
 * @module
 */
import { randomUUID } from 'node:crypto';
import { constants } from 'node:fs';
import { lstat, open, unlink } from 'node:fs/promises';
import { createFileAtomic } from './atomic-create.js';
import { lockHolderAlive } from './process-alive.js';

export interface FileLockOptions {
  /** How long to wait for a live holder, in ms, before giving up. */
  waitMs: number;
  /**
   * Age in ms after which a lock that names no process (a foreign or damaged file) is taken over.
   * A lock whose process runs is never taken over, however old: `onBusy` decides after `waitMs`.
   */
  staleMs: number;
  /** How often to look again while waiting; 25 ms by default. */
  pollMs?: number;
}

/** What `work` gets: whether the lock is still its own, to check just before it writes. */
export interface FileLockHold {
  /**
   * Whether this process still holds it, to check just before writing: false only when the lock
   * file was removed or replaced by hand (or this process was taken for gone), when a write could
   * drop another's change. True when `work` runs unlocked (`onBusy` returned).
   */
  held(): Promise<boolean>;
}

interface HeldFileLock extends FileLockHold {
  /** Removes the lock if this process still holds it; safe to call more than once. */
  release(): Promise<void>;
}

/** The holder the lock names when a wait gives up: its pid, when the lock says. */
export interface FileLockBusy {
  readonly path: string;
  readonly pid: number | undefined;
}

/** The lock's content, at most 256 bytes; undefined when it is gone or unreadable. */
async function readLock(path: string): Promise<string | undefined> {
  let handle: Awaited<ReturnType<typeof open>> | undefined;
  try {
    handle = await open(path, 'r');
    const buffer = Buffer.alloc(256);
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
    return buffer.toString('utf8', 0, bytesRead);
  } catch {
    return undefined;
  } finally {
    await handle?.close().catch(() => undefined);
  }
}

/**
 * The pid a lock file names: `pid:token` (what `withFileLock` and the plugin store write), or a
 * bare pid (older OAuth locks); undefined for any other content.
 */
export function lockHolderPid(content: string | undefined): number | undefined {
  const pid = content === undefined ? undefined : /^(\d+)(?::|$)/.exec(content)?.[1];
  return pid === undefined ? undefined : Number(pid);
}

/** A lock as one descriptor saw it: its inode, age and content belong to the same file. */
interface LockState {
  readonly ino: number;
  readonly mtimeMs: number;
  readonly content: string;
}

/**
 * The lock at `path`, or undefined when there is none. One that cannot be opened (left by
 * `sudo clat`, a link, a directory, a FIFO: never followed nor waited on) is judged as naming no
 * process, by its age: otherwise it was never taken over, and every edit waited and failed.
 */
async function inspectLock(path: string): Promise<LockState | undefined> {
  let handle: Awaited<ReturnType<typeof open>> | undefined;
  try {
    handle = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
    const { ino, mtimeMs } = await handle.stat();
    const buffer = Buffer.alloc(256);
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
    return { ino, mtimeMs, content: buffer.toString('utf8', 0, bytesRead) };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    const stat = await lstat(path).catch(() => undefined);
    return stat === undefined ? undefined : { ino: stat.ino, mtimeMs: stat.mtimeMs, content: '' };
  } finally {
    await handle?.close().catch(() => undefined);
  }
}

/**
 * Whether the holder a lock names is gone (exited, or its pid now runs a later process); a lock
 * naming no process is judged by age alone. A live holder is never stale.
 */
function isStale(state: LockState, staleMs: number): boolean {
  const pid = lockHolderPid(state.content);
  if (pid !== undefined) return !lockHolderAlive(pid, state.mtimeMs);
  return Date.now() - state.mtimeMs > staleMs;
}

/** Removes `path` if it is still the file (inode and content) that was judged. */
async function removeIfSame(path: string, judged: LockState): Promise<void> {
  // The content too: a file published after the judged one was removed may reuse its inode
  // number (ext4 and tmpfs do so quickly), never its token.
  const now = await inspectLock(path);
  if (now?.ino === judged.ino && now.content === judged.content) {
    await unlink(path).catch(() => undefined);
  }
}

async function publish(path: string, token: string): Promise<boolean> {
  try {
    // Not synced: a lock does not need to survive a crash, its holder would not either.
    await createFileAtomic(path, token, { mode: 0o600, sync: false });
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  }
}

/** How long a takeover guard may name no process before it goes (it is held for milliseconds). */
const GUARD_STALE_MS = 5_000;

/**
 * Removes the lock at `path` if its holder is gone, judged again under the guard
 * `<path>.takeover`. Only takers-over remove another's lock and only one holds the guard, so the
 * stale file judged is still the one at `path` when it is removed; a live holder's lock that
 * replaced it meanwhile (its holder released, a third process published) is left alone. Without
 * the guard a waiter that had read the released lock removed its live successor, and two
 * processes held the lock at once. False, with nothing removed, while another holds the guard:
 * the caller waits a poll and looks again.
 */
async function takeOver(path: string, token: string, staleMs: number): Promise<boolean> {
  const guard = `${path}.takeover`;
  if (!(await publish(guard, token))) {
    const other = await inspectLock(guard);
    // A taker-over that died holding the guard: its guard goes, and the next look takes over.
    if (other !== undefined && isStale(other, GUARD_STALE_MS)) await removeIfSame(guard, other);
    return false;
  }
  try {
    const state = await inspectLock(path);
    if (state !== undefined && isStale(state, staleMs)) await removeIfSame(path, state);
  } finally {
    if ((await readLock(guard)) === token) await unlink(guard).catch(() => undefined);
  }
  return true;
}

/**
 * One attempt at the lock at `path` for `token` (`pid:token`, this process's pid first): it is
 * published, or a gone holder's lock is taken over (under the guard) and it is published then.
 * Otherwise `holder` is the content of the lock that keeps it (undefined when unreadable). For
 * callers that wait in their own way (the plugin store's lease); `withFileLock` waits with it.
 */
export async function tryFileLock(
  path: string,
  token: string,
  staleMs: number,
): Promise<{ taken: true } | { taken: false; holder: string | undefined }> {
  let seen: LockState | undefined;
  // A few rounds: a lock released between publish and look, or one just taken over, is published
  // at once rather than at the caller's next poll.
  for (let round = 0; round < 3; round++) {
    if (await publish(path, token)) return { taken: true };
    seen = await inspectLock(path);
    if (seen === undefined) continue;
    if (!isStale(seen, staleMs) || !(await takeOver(path, token, staleMs))) break;
  }
  return { taken: false, holder: seen?.content };
}

/**
 * Takes the lock at `path` (its directory must exist), waiting up to `waitMs` for a live holder.
 * Resolves to the held lock, or to the holder that kept it when the wait gave up.
 */
async function acquireFileLock(
  path: string,
  options: FileLockOptions,
): Promise<{ lock: HeldFileLock } | { busy: FileLockBusy }> {
  const token = `${process.pid}:${randomUUID()}`;
  const deadline = Date.now() + options.waitMs;
  const poll = options.pollMs ?? 25;
  for (;;) {
    const attempt = await tryFileLock(path, token, options.staleMs);
    if (attempt.taken) break;
    // A lock that cannot be removed (a directory in its place, one owned by another user in a
    // sticky directory) ends at the deadline like a live holder's.
    if (Date.now() >= deadline) return { busy: { path, pid: lockHolderPid(attempt.holder) } };
    await new Promise((resolve) => setTimeout(resolve, poll));
  }
  const held = async () => (await readLock(path)) === token;
  let released = false;
  const release = async () => {
    if (released) return;
    released = true;
    if (await held()) await unlink(path).catch(() => undefined);
  };
  return { lock: { held, release } };
}

/**
 * Runs `work` holding the lock at `path`, then releases it. When a live holder keeps it past
 * `waitMs`, `onBusy` decides: it throws the caller's own error (naming the file), or returns and
 * `work` runs unlocked.
 */
export async function withFileLock<T>(
  path: string,
  options: FileLockOptions & { onBusy: (busy: FileLockBusy) => void },
  work: (hold: FileLockHold) => Promise<T>,
): Promise<T> {
  const taken = await acquireFileLock(path, options);
  if ('busy' in taken) {
    options.onBusy(taken.busy);
    return work({ held: async () => true });
  }
  try {
    return await work(taken.lock);
  } finally {
    await taken.lock.release();
  }
}

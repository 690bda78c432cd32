/**
 * A lock file for read-modify-write edits that several processes make to one file: two
 * `clat mcp add` at once, two refreshes of one OAuth token. Without it each reads the old file and
 * the last rename wins, so the other's change is lost while both report success.
 *
 * The lock holds `pid:token`, appears whole (written to a temporary sibling and linked into place,
 * so it is never seen empty) and is removed only by its holder. A lock whose process is gone, or
 * that is older than `staleMs`, is taken over, and only if it is still the lock that was judged:
 * two processes taking over one stale lock never both hold it.
 * @module
 */
import { randomUUID } from 'node:crypto';
import { link, lstat, open, rename, unlink } from 'node:fs/promises';
import { createFileAtomic } from './atomic-create.js';
import { lockHolderAlive } from './process-alive.js';

export interface FileLockOptions {
  /** How long to wait for a live holder, in ms, before giving up. */
  waitMs: number;
  /** Age in ms after which a lock is taken over even though its process still runs. */
  staleMs: number;
  /** How often to look again while waiting; 25 ms by default. */
  pollMs?: number;
}

/** What `work` gets: whether the lock is still its own, to check just before it writes. */
export interface FileLockHold {
  /**
   * Whether this process still holds it: another takes over a lock older than `staleMs` even
   * from a live holder (a process stopped with Ctrl-Z, a hung one), whose later write would then
   * drop that process's change. True when `work` runs unlocked (`onBusy` returned).
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

async function isStale(path: string, content: string | undefined, staleMs: number) {
  const stat = await lstat(path).catch(() => undefined);
  const pid = lockHolderPid(content);
  if (pid !== undefined && !lockHolderAlive(pid, stat?.mtimeMs ?? Date.now())) return true;
  // A live holder, or content that names none (being judged too early): only age frees it.
  return stat !== undefined && Date.now() - stat.mtimeMs > staleMs;
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

/**
 * Moves the stale lock `seen` out of the way. Another process may have taken it over and
 * published its own in between: that one is put back, never removed.
 */
async function takeOver(path: string, seen: string | undefined): Promise<void> {
  const aside = `${path}.${randomUUID()}.stale`;
  try {
    await rename(path, aside);
  } catch {
    return; // gone already: its holder released it or another process moved it
  }
  const moved = await readLock(aside);
  if (moved !== seen) await link(aside, path).catch(() => undefined);
  await unlink(aside).catch(() => undefined);
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
    if (await publish(path, token)) break;
    const seen = await readLock(path);
    if (await isStale(path, seen, options.staleMs)) {
      await takeOver(path, seen);
      // Taking over is retried at once, within the wait: a lock that cannot be moved aside
      // (its directory turned read-only) ends at the deadline like a live holder's.
      if (Date.now() < deadline) continue;
    }
    if (Date.now() >= deadline) return { busy: { path, pid: lockHolderPid(seen) } };
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

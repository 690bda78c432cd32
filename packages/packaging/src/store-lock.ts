/**
 * The storage-root lease of the plugin store: a `lock` file holding `pid:token`, published
 * complete and reclaimed only from a holder process that is gone.
 * @module
 */
import { randomUUID } from 'node:crypto';
import { link, mkdir, rename, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { lockHolderPid } from '@clat/node-files';
import { PackagingError } from './errors.js';
import { readBoundedFile } from './inspect.js';
import { lockIsStale, publishLock } from './store-fs.js';
import type { StoreLease } from './store-types.js';

export const LOCK_FILE = 'lock';
export const STORE_BUSY_MESSAGE =
  'CLAT storage is busy: another clat command is changing the installed plugins; retry once it has finished';

/** Why the lease is busy: the holder's pid and the lock file, when the lock names one. */
export function storeBusyMessage(lock: string, holder: string | undefined): string {
  const pid = lockHolderPid(holder);
  return pid === undefined
    ? STORE_BUSY_MESSAGE
    : `CLAT storage is busy: process ${pid} holds ${lock} (another clat command changing the installed plugins); retry once it has finished`;
}

/** The lease on one store root; a process holds at most one token at a time. */
export class StoreLock {
  readonly root: string;
  #token: string | undefined;

  constructor(root: string) {
    this.root = root;
  }

  /**
   * Takes the storage-root lease (a `lock` file holding `pid:token`). The lock is published
   * complete: the token is written to a temp file first and hard-linked into place, so a live
   * holder's lock is never empty. A lease whose holder process is gone is reclaimed; a live holder
   * (or a lock too fresh to judge) means {@link STORE_BUSY_MESSAGE}; the store's changes wait for
   * it (`PluginStoreOptions.waitMs`).
   */
  async acquire(): Promise<StoreLease> {
    await mkdir(join(this.root, 'artifacts'), { recursive: true, mode: 0o700 });
    await mkdir(join(this.root, 'containers'), { recursive: true, mode: 0o700 });
    await mkdir(join(this.root, 'staging'), { recursive: true, mode: 0o700 });
    const lock = join(this.root, LOCK_FILE);
    const token = `${process.pid}:${randomUUID()}`;
    let seen: string | undefined;
    const busy = (cause?: unknown) =>
      new PackagingError('STORE_BUSY', storeBusyMessage(lock, seen), {
        file: lock,
        ...(cause === undefined ? {} : { cause }),
      });
    if (!(await publishLock(lock, token))) {
      seen = await readBoundedFile(lock, 256)
        .then((b) => b.toString('utf8'))
        .catch(() => undefined);
      if (seen === undefined || !(await lockIsStale(lock, seen))) throw busy();
      // Move the stale lock aside and make sure it is the one we judged: another process may
      // have reclaimed and re-taken it in between.
      const aside = join(this.root, `${LOCK_FILE}.${randomUUID()}.stale`);
      try {
        await rename(lock, aside);
      } catch (error) {
        throw busy(error);
      }
      const moved = await readBoundedFile(aside, 256)
        .then((b) => b.toString('utf8'))
        .catch(() => undefined);
      if (moved !== seen) {
        await link(aside, lock).catch(() => undefined);
        await unlink(aside).catch(() => undefined);
        seen = moved;
        throw busy();
      }
      await unlink(aside).catch(() => undefined);
      if (!(await publishLock(lock, token))) {
        // Another process took it in the meantime: a live holder by now.
        seen = await readBoundedFile(lock, 256)
          .then((b) => b.toString('utf8'))
          .catch(() => undefined);
        throw busy();
      }
    }
    this.#token = token;
    let released = false;
    const release = async () => {
      if (released) return;
      released = true;
      if (this.#token === token) this.#token = undefined;
      const holder = await readBoundedFile(lock, 256)
        .then((b) => b.toString('utf8'))
        .catch(() => '');
      if (holder === token) await unlink(lock).catch(() => undefined);
    };
    return { release, [Symbol.asyncDispose]: release };
  }

  /**
   * Throws STORE_BUSY unless this lock still holds the lease. Two processes reclaiming one stale
   * lease at once could both proceed; the loser notices here, before it touches the pointer.
   */
  async assertHeld(): Promise<void> {
    const holder = await readBoundedFile(join(this.root, LOCK_FILE), 256)
      .then((b) => b.toString('utf8'))
      .catch(() => '');
    if (this.#token === undefined || holder !== this.#token) {
      const lock = join(this.root, LOCK_FILE);
      throw new PackagingError('STORE_BUSY', storeBusyMessage(lock, holder || undefined), {
        file: lock,
      });
    }
  }
}

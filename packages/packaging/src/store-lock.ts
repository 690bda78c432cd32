/**
 * The storage-root lease of the plugin store: a `lock` file holding `pid:token`, published
 * complete and reclaimed only from a holder process that is gone.
 * @module
 */
import { randomUUID } from 'node:crypto';
import { mkdir, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { lockHolderPid, tryFileLock } from '@clat/node-files';
import { PackagingError } from './errors.js';
import { readBoundedFile } from './inspect.js';
import type { StoreLease } from './store-types.js';

export const LOCK_FILE = 'lock';
/** Age after which a lock file without a `pid:token` is considered abandoned. */
const LOCK_UNREADABLE_STALE_MS = 30_000;
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
   * Takes the storage-root lease (a `lock` file holding `pid:token`, `tryFileLock` of
   * `@clat/node-files`). The lock is published complete: the token is written to a temp file
   * first and hard-linked into place, so a live holder's lock is never empty. A lease whose holder
   * process is gone is reclaimed; a live holder (or a lock naming no process, until it is old)
   * means {@link STORE_BUSY_MESSAGE}; the store's changes wait for it (`PluginStoreOptions.waitMs`).
   */
  async acquire(): Promise<StoreLease> {
    await mkdir(join(this.root, 'artifacts'), { recursive: true, mode: 0o700 });
    await mkdir(join(this.root, 'containers'), { recursive: true, mode: 0o700 });
    await mkdir(join(this.root, 'staging'), { recursive: true, mode: 0o700 });
    const lock = join(this.root, LOCK_FILE);
    const token = `${process.pid}:${randomUUID()}`;
    // The one takeover of @clat/node-files: judged on one descriptor, under its guard file, so
    // a lease published after a gone holder's is never removed with it.
    const attempt = await tryFileLock(lock, token, LOCK_UNREADABLE_STALE_MS);
    if (!attempt.taken) {
      throw new PackagingError('STORE_BUSY', storeBusyMessage(lock, attempt.holder), {
        file: lock,
      });
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
   * Throws STORE_BUSY unless this lock still holds the lease: a lock file removed or replaced by
   * hand (or this process taken for gone) is noticed here, before the pointer is touched.
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

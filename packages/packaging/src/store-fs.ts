/**
 * File-system steps of the plugin store: complete-or-nothing lock files, read-only tree copies
 * and removal of read-only trees.
 * @module
 */
import { constants } from 'node:fs';
import { chmod, lstat, mkdir, open, readdir, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { createFileAtomic, fsyncDirectory, lockHolderAlive, lockHolderPid } from '@clat/node-files';
import type { InspectedPackage } from './inspect.js';

/** Age after which a lock file without a `pid:token` is considered abandoned. */
export const LOCK_UNREADABLE_STALE_MS = 30_000;

/**
 * Writes `token` (0600, synced) to a temp file and links it to `lock`, so a lock is never seen
 * empty; false when a lock already exists.
 */
export async function publishLock(lock: string, token: string): Promise<boolean> {
  try {
    await createFileAtomic(lock, token, { mode: 0o600 });
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  }
}

/** A lock left by a process that is gone; an unreadable one only once it is old. */
export async function lockIsStale(lock: string, content: string): Promise<boolean> {
  const stat = await lstat(lock).catch(() => undefined);
  const owner = lockHolderPid(content);
  // Its holder is gone, or the pid now runs a process started after the lock was written (a
  // container restarted, pids wrapped around): nothing would ever free it otherwise.
  if (owner !== undefined) return !lockHolderAlive(owner, stat?.mtimeMs ?? Date.now());
  // Not `pid:token`: written by something else or by an older CLAT; judge it by age, never as
  // stale the moment it is seen.
  return stat !== undefined && Date.now() - stat.mtimeMs > LOCK_UNREADABLE_STALE_MS;
}

/** Copies an inspected tree file by file (0400, 0500 when executable), fsyncing files and dirs. */
export async function copyTree(inspected: InspectedPackage, dest: string): Promise<void> {
  const dirs = new Set<string>([dest]);
  await mkdir(dest, { mode: 0o700 });
  for (const file of inspected.tree.files) {
    const target = join(dest, ...file.path.split('/'));
    const parent = dirname(target);
    if (!dirs.has(parent)) {
      await mkdir(parent, { recursive: true, mode: 0o700 });
      dirs.add(parent);
    }
    const source = await open(
      join(inspected.dir, file.path),
      constants.O_RDONLY | constants.O_NOFOLLOW,
    );
    try {
      const out = await open(target, 'wx', 0o600);
      try {
        const buffer = Buffer.alloc(Math.min(1024 * 1024, Math.max(1, file.size)));
        let position = 0;
        for (;;) {
          const { bytesRead } = await source.read(buffer, 0, buffer.length, position);
          if (bytesRead === 0) break;
          // writeFile writes all it is given from the file's position, retrying a short write
          // (a disk filling up) until the disk's own error: `write` took a short one as whole.
          await out.writeFile(buffer.subarray(0, bytesRead));
          position += bytesRead;
        }
        await out.chmod(file.executable ? 0o500 : 0o400);
        await out.sync();
      } finally {
        await out.close();
      }
    } finally {
      await source.close();
    }
  }
  for (const dir of [...dirs].sort((a, b) => b.length - a.length)) await fsyncDirectory(dir);
}

/** Makes a tree writable again so it can be removed (artifact files are read-only). */
export async function removeTree(path: string): Promise<void> {
  await rm(path, { recursive: true, force: true }).catch(async () => {
    const walk = async (dir: string): Promise<void> => {
      await chmod(dir, 0o700).catch(() => undefined);
      for (const entry of await readdir(dir, { withFileTypes: true }).catch(() => [])) {
        if (entry.isDirectory()) await walk(join(dir, entry.name));
      }
    };
    await walk(path);
    await rm(path, { recursive: true, force: true });
  });
}

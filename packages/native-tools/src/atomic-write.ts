/**
 * Atomic file replacement for the write tools: the project fence's directory checks and mode
 * rules around `@clat/node-files`' temp + fsync + rename, then a directory fsync. Readers see the
 * old or the new content, never a half-written file.
 * @module
 */
import { constants } from 'node:fs';
import { type FileHandle, mkdir, open, readlink, realpath, rm, stat } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { fsyncDirectory, writeFileAtomic as replaceFile } from '@clat/node-files';

export interface AtomicWriteOptions {
  /** Mode of a file that does not exist yet (default 0o666, less the umask). */
  newFileMode?: number;
  /** Mode of directories created on the way (default 0o777, less the umask). */
  dirMode?: number;
  /** Mode of the written file even when it existed with another one (files holding secrets). */
  mode?: number;
  /**
   * Checks the real path of the directory the file lands in and throws to refuse it (the project
   * fence). The directory is held open from that check to the rename, so swapping a path component
   * for a symlink in between cannot move the write elsewhere.
   */
  verifyDir?: (realDir: string) => void;
}

/**
 * Holds `dir` open and returns a path that names the held directory itself (Linux
 * `/proc/self/fd/<n>`), with its real path checked by `verify`; without /proc, the directory's
 * path after a realpath check, which the caller verifies again after the rename.
 */
async function holdDirectory(
  dir: string,
  verify: (realDir: string) => void,
): Promise<{ base: string; handle: FileHandle; held: boolean }> {
  const handle = await open(dir, constants.O_RDONLY | constants.O_DIRECTORY);
  try {
    const link = `/proc/self/fd/${handle.fd}`;
    const real = await readlink(link).catch(() => undefined);
    if (real?.startsWith('/')) {
      verify(real);
      return { base: link, handle, held: true };
    }
    verify(await realpath(dir));
    return { base: dir, handle, held: false };
  } catch (error) {
    await handle.close();
    throw error;
  }
}

/** Writes `content` to `path` atomically; keeps an existing file's mode. Returns whether it was created. */
export async function writeFileAtomic(
  path: string,
  content: string | Uint8Array,
  options: AtomicWriteOptions = {},
): Promise<{ created: boolean }> {
  const dir = dirname(path);
  await mkdir(dir, {
    recursive: true,
    ...(options.dirMode === undefined ? {} : { mode: options.dirMode }),
  });
  let mode = options.mode ?? options.newFileMode ?? 0o666;
  let created = true;
  try {
    const info = await stat(path);
    mode = options.mode ?? info.mode & 0o7777;
    created = false;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  const held =
    options.verifyDir === undefined ? undefined : await holdDirectory(dir, options.verifyDir);
  try {
    // Through the held directory (its temp sibling too), so a swapped path cannot move the write.
    const target = join(held?.base ?? dir, basename(path));
    // A replaced file keeps its mode exactly (past the umask); a new one gets it less the umask.
    await replaceFile(target, content, { mode, exactMode: !created });
    if (held !== undefined && !held.held && options.verifyDir !== undefined) {
      // No way to hold the directory: check again after the rename and take the file back.
      try {
        options.verifyDir(await realpath(dir));
      } catch (error) {
        await rm(target, { force: true });
        throw error;
      }
    }
    try {
      if (held === undefined) await fsyncDirectory(dir);
      else await held.handle.sync();
    } catch {
      // Directory fsync is best effort (unsupported on some platforms and file systems).
    }
  } finally {
    await held?.handle.close();
  }
  return { created };
}

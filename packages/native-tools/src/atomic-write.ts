/**
 * Atomic file replacement: write a sibling temp file, fsync it, rename over the target, fsync
 * the directory. Readers see the old or the new content, never a half-written file.
 * @module
 */
import { randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import {
  type FileHandle,
  mkdir,
  open,
  readlink,
  realpath,
  rename,
  rm,
  stat,
} from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

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
    const base = held?.base ?? dir;
    const name = basename(path);
    const temp = join(base, `.${name}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`);
    const target = join(base, name);
    const handle = await open(temp, 'wx', mode);
    try {
      try {
        if (!created) await handle.chmod(mode);
        await handle.writeFile(content);
        await handle.sync();
      } finally {
        await handle.close();
      }
      await rename(temp, target);
    } catch (error) {
      await rm(temp, { force: true });
      throw error;
    }
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
      const dirHandle = held?.handle ?? (await open(dir, 'r'));
      try {
        await dirHandle.sync();
      } finally {
        if (held === undefined) await dirHandle.close();
      }
    } catch {
      // Directory fsync is best effort (unsupported on some platforms and file systems).
    }
  } finally {
    await held?.handle.close();
  }
  return { created };
}

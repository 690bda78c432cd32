/**
 * Atomic file replacement: write a sibling temp file, fsync it, rename over the target, fsync
 * the directory. Readers see the old or the new content, never a half-written file.
 * @module
 */
import { randomBytes } from 'node:crypto';
import { mkdir, open, rename, rm, stat } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

export interface AtomicWriteOptions {
  /** Mode of a file that does not exist yet (default 0o666, less the umask). */
  newFileMode?: number;
  /** Mode of directories created on the way (default 0o777, less the umask). */
  dirMode?: number;
  /** Mode of the written file even when it existed with another one (files holding secrets). */
  mode?: number;
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
  const temp = join(dir, `.${basename(path)}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`);
  const handle = await open(temp, 'wx', mode);
  try {
    try {
      if (!created) await handle.chmod(mode);
      await handle.writeFile(content);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temp, path);
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  }
  try {
    const dirHandle = await open(dir, 'r');
    try {
      await dirHandle.sync();
    } finally {
      await dirHandle.close();
    }
  } catch {
    // Directory fsync is best effort (unsupported on some platforms and file systems).
  }
  return { created };
}

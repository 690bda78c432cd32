/** Atomic file replacement: temp file in the same directory, fsync, rename, fsync the directory. @module */
import { randomBytes } from 'node:crypto';
import { mkdir, open, rename, rm, stat } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

/**
 * Replaces `file` with `text` so readers see the old or the new content, never a mix. Keeps the
 * existing file's mode; a new file gets `mode` (0600 by default: config may hold secrets).
 */
export async function writeFileAtomic(file: string, text: string, mode = 0o600): Promise<void> {
  const dir = dirname(file);
  await mkdir(dir, { recursive: true, mode: 0o700 });
  let finalMode = mode;
  try {
    finalMode = (await stat(file)).mode & 0o777;
  } catch {
    // New file: keep the requested mode.
  }
  const temp = join(dir, `.${basename(file)}.${randomBytes(6).toString('hex')}.tmp`);
  const handle = await open(temp, 'wx', finalMode);
  try {
    await handle.writeFile(text, 'utf8');
    await handle.sync();
  } catch (error) {
    await handle.close();
    await rm(temp, { force: true });
    throw error;
  }
  await handle.close();
  try {
    await rename(temp, file);
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
    // Some filesystems refuse fsync on directories; the rename is already durable enough there.
  }
}

/**
 * The first half of every atomic replacement in the store (registry, secrets, lock): a new 0600
 * temporary file, created exclusively under a name the caller makes unpredictable, written and
 * synced before the caller renames or links it into place.
 * @module
 */
import { open, unlink } from 'node:fs/promises';

/**
 * Creates `temp` (0600, `wx`: never an existing file or a planted link), writes `content` and
 * syncs it. On failure the partial file is removed before the error is thrown, so no half-written
 * copy of a secret stays behind.
 */
export async function writeNewPrivateFile(temp: string, content: string): Promise<void> {
  const handle = await open(temp, 'wx', 0o600);
  try {
    try {
      await handle.writeFile(content);
      await handle.sync();
    } finally {
      await handle.close();
    }
  } catch (error) {
    await unlink(temp).catch(() => undefined);
    throw error;
  }
}

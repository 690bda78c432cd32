/**
 * How the WASM host replaces one of its private files (a source record, a glue code cache): the
 * content goes to a temporary file beside it (0600, created new), which is renamed into place, so
 * a reader sees the old file or the whole new one, never a part.
 * @module
 */
import { randomUUID } from 'node:crypto';
import { rename, rm, writeFile } from 'node:fs/promises';

/**
 * Replaces `path` with `content`, readable and writable by its owner only. On failure the
 * temporary file is removed and the error thrown; `path` is then as it was.
 */
export async function replacePrivateFile(
  path: string,
  content: string | Uint8Array,
): Promise<void> {
  const temp = `${path}.${process.pid}.${randomUUID()}.tmp`;
  try {
    await writeFile(temp, content, { mode: 0o600, flag: 'wx' });
    await rename(temp, path);
  } catch (error) {
    await rm(temp, { force: true }).catch(() => {});
    throw error;
  }
}

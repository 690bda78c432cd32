/**
 * How the WASM host replaces one of its private files (a source record, a glue code cache, the
 * write grants): the content goes to a temporary file beside it (0600, created new under an
 * unpredictable name, so nothing planted there is followed or reused), which is renamed into
 * place, so a reader sees the old file or the whole new one, never a part.
 * @module
 */
import { randomUUID } from 'node:crypto';
import { open, rename, rm } from 'node:fs/promises';

/**
 * Replaces `path` with `content`, readable and writable by its owner only; `sync` flushes the
 * content to disk before the rename (for files whose loss matters, such as the grants, not for
 * caches that are rebuilt). On failure the temporary file is removed and the error thrown;
 * `path` is then as it was.
 */
export async function replacePrivateFile(
  path: string,
  content: string | Uint8Array,
  options: { sync?: boolean } = {},
): Promise<void> {
  const temp = `${path}.${process.pid}.${randomUUID()}.tmp`;
  try {
    const handle = await open(temp, 'wx', 0o600);
    try {
      await handle.writeFile(content);
      if (options.sync === true) await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temp, path);
  } catch (error) {
    await rm(temp, { force: true }).catch(() => {});
    throw error;
  }
}

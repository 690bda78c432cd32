/**
 * Atomic replacement: the content goes to a temporary sibling, which is renamed over the target,
 * so a reader sees the old file or the whole new one, never a part, and of concurrent writers the
 * last rename wins with one whole file.
 * @module
 */
import { rename, unlink } from 'node:fs/promises';
import { createAndWrite, type FileData, type NewFileOptions } from './new-file.js';
import { tempPathFor } from './temp-name.js';

export interface AtomicWriteOptions extends NewFileOptions {
  /** `mode` as given, past the umask (fchmod): for keeping the exact mode of a replaced file. */
  exactMode?: boolean;
}

/**
 * Replaces (or creates) `path` with `data`: a new temporary sibling under an unpredictable name
 * (created exclusively, `mode`, fsynced unless `sync: false`) renamed over it. A link at `path` is
 * replaced, never followed. On failure the temporary file is removed, `path` is as it was and the
 * error is thrown as Node gave it. The directory is not fsynced: see {@link fsyncDirectory}.
 */
export async function writeFileAtomic(
  path: string,
  data: FileData,
  options: AtomicWriteOptions,
): Promise<void> {
  const temp = tempPathFor(path);
  await createAndWrite(temp, data, options);
  try {
    await rename(temp, path);
  } catch (error) {
    await unlink(temp).catch(() => undefined);
    throw error;
  }
}

/**
 * Atomic replacement: the content goes to a temporary sibling, which is renamed over the target,
 * so a reader sees the old file or the whole new one, never a part, and of concurrent writers the
 * last rename wins with one whole file.
 * @module
 */
import { readdir, rename, unlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { createAndWrite, type FileData, type NewFileOptions } from './new-file.js';
import { isAbandonedTempFileOf, tempPathFor } from './temp-name.js';

export interface AtomicWriteOptions extends NewFileOptions {
  /** `mode` as given, past the umask (fchmod): for keeping the exact mode of a replaced file. */
  exactMode?: boolean;
}

/**
 * Replaces (or creates) `path` with `data`: a new temporary sibling under an unpredictable name
 * (created exclusively, `mode`, fsynced unless `sync: false`) renamed over it. A link at `path` is
 * replaced, never followed. On failure the temporary file is removed, `path` is as it was and the
 * error is thrown as Node gave it; after success, temporary siblings that killed writers left are
 * removed. The directory is not fsynced: see {@link fsyncDirectory}.
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
  await removeLeftovers(path);
}

/**
 * Removes the temporary siblings of `path` that writers killed between creating and renaming
 * them left (a SIGKILL, a closed terminal): they hold what the file held, keys included, and
 * nothing else ever removes them. Only those whose writer (the pid in the name) no longer runs:
 * a live one may be renaming its own. Best effort: a failure here never fails the write.
 */
async function removeLeftovers(path: string): Promise<void> {
  const name = basename(path);
  const dir = dirname(path);
  let entries: string[];
  try {
    entries = await readdir(dir);
  } catch {
    return;
  }
  for (const entry of entries) {
    if (isAbandonedTempFileOf(entry, name)) await unlink(join(dir, entry)).catch(() => undefined);
  }
}

/**
 * Atomic creation: the content goes to a temporary sibling, which is hard-linked to the target.
 * link(2) never replaces anything, so the target appears whole or not at all, and of concurrent
 * creators exactly one wins.
 * @module
 */
import { link, unlink } from 'node:fs/promises';
import { createAndWrite, type FileData, type NewFileOptions } from './new-file.js';
import { tempPathFor } from './temp-name.js';

/**
 * Creates `path` with `data`, whole or not at all, never replacing what is there: the error
 * (`code` EEXIST, `syscall` link) says someone else has it. The content is written, fsynced unless
 * `sync: false`, to a temporary sibling (exclusive, unpredictable name, `mode`) that is linked into
 * place and always removed afterwards. The directory is not fsynced: see {@link fsyncDirectory}.
 */
export async function createFileAtomic(
  path: string,
  data: FileData,
  options: NewFileOptions,
): Promise<void> {
  const temp = tempPathFor(path);
  await createAndWrite(temp, data, options);
  try {
    await link(temp, path);
  } finally {
    await unlink(temp).catch(() => undefined);
  }
}

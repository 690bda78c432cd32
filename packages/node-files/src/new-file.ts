/**
 * Exclusive creation: a file that did not exist, written whole or removed again. The step every
 * writer here starts with, and on its own the way to fill a directory that was just created.
 * @module
 */
import { type FileHandle, open, unlink } from 'node:fs/promises';

/**
 * What a file receives: text (UTF-8), bytes, or chunks produced while writing (a container too
 * large to hold in memory). Chunks are asked for only once the file exists.
 */
export type FileData = string | Uint8Array | AsyncIterable<Uint8Array>;

export interface NewFileOptions {
  /**
   * Permission bits of the new file, less the umask, as open(2) applies them: 0o600 for a file
   * only its owner may read. Always given: no writer here has a mode it did not choose.
   */
  mode: number;
  /**
   * fsync before closing (default true), so a crash after the rename or link cannot leave an
   * empty file; false for files that are rebuilt when lost (caches).
   */
  sync?: boolean;
}

async function writeData(handle: FileHandle, data: FileData): Promise<void> {
  if (typeof data === 'string' || data instanceof Uint8Array) {
    await handle.writeFile(data);
    return;
  }
  // writeFile on a handle writes at its position and loops until the chunk is all written.
  for await (const chunk of data) await handle.writeFile(chunk);
}

/** {@link writeNewFile}, plus `exactMode` for the replacement in atomic-write.ts. */
export async function createAndWrite(
  path: string,
  data: FileData,
  options: NewFileOptions & { exactMode?: boolean },
): Promise<void> {
  // `wx`: O_CREAT | O_EXCL. Fails with EEXIST on any file or link already there (even a dangling
  // one), so nothing planted at `path` is written through.
  const handle = await open(path, 'wx', options.mode);
  try {
    try {
      if (options.exactMode === true) await handle.chmod(options.mode);
      await writeData(handle, data);
      if (options.sync !== false) await handle.sync();
    } finally {
      await handle.close();
    }
  } catch (error) {
    // The file is ours (we created it): no partial copy, of a secret or of anything, stays behind.
    await unlink(path).catch(() => undefined);
    throw error;
  }
}

/**
 * Creates `path` (never an existing file or a planted link: EEXIST), writes `data`, fsyncs unless
 * `sync: false`, and closes it. On any failure after the create the partial file is removed and
 * the error is thrown as Node gave it. Readers may see the file while it is written: for a name
 * nobody reads yet (a fresh directory, a temporary file). The others want {@link createFileAtomic}.
 */
export async function writeNewFile(
  path: string,
  data: FileData,
  options: NewFileOptions,
): Promise<void> {
  await createAndWrite(path, data, options);
}

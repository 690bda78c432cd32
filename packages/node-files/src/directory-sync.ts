/**
 * Durable directory entries. A rename or link is in the directory, not in the file: only an fsync
 * of the directory makes the new entry survive a crash.
 * @module
 */
import { open } from 'node:fs/promises';

/** Fsyncs directory `dir`; errors are thrown (a caller that can do without catches them). */
export async function fsyncDirectory(dir: string): Promise<void> {
  const handle = await open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

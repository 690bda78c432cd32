/**
 * Saying what a refused read of a store file means: "EACCES" alone left a person to guess that
 * the file (or its directory) belongs to another user, often root after a `sudo clat`.
 * @module
 */
import { stat } from 'node:fs/promises';
import { dirname } from 'node:path';

/** The errno code of `error` or of the error it wraps. */
function errnoCode(error: unknown): string | undefined {
  const own = (error as NodeJS.ErrnoException | undefined)?.code;
  if (typeof own === 'string' && own.startsWith('E')) return own;
  const cause = (error as { cause?: unknown } | undefined)?.cause;
  return cause === undefined ? undefined : errnoCode(cause);
}

/**
 * "permission denied reading <file> (owner uid U, mode 0MMM; clat runs as uid V)", with what to
 * check, when `error` is EACCES or EPERM; undefined for any other error.
 */
export async function permissionDenied(file: string, error: unknown): Promise<string | undefined> {
  const code = errnoCode(error);
  if (code !== 'EACCES' && code !== 'EPERM') return undefined;
  const self = process.getuid?.();
  const runsAs = self === undefined ? '' : `; clat runs as uid ${self}`;
  const found = await stat(file).catch(() => undefined);
  if (found === undefined) {
    return `permission denied reading ${file}: check the owner and mode of its directory ${dirname(file)} (ls -ld)${runsAs}`;
  }
  const mode = (found.mode & 0o777).toString(8).padStart(4, '0');
  return `permission denied reading ${file} (owner uid ${found.uid}, mode ${mode}${runsAs}): give it back to the user who runs clat (chown) with mode 0600, or run clat as its owner`;
}

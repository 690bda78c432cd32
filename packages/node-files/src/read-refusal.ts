/**
 * Saying what a refused read of one of CLAT's files means: "EACCES" alone left a person to guess
 * that the file (or its directory) belongs to another user, often root after a `sudo clat`. The
 * CLI's settings files and the plugin store's registry and secrets say it in these same words.
 * @module
 */
import { statSync } from 'node:fs';
import { dirname } from 'node:path';

/** The errno code of `error` or of an error it wraps (a package's error around Node's). */
function errnoCode(error: unknown): string | undefined {
  const own = (error as NodeJS.ErrnoException | undefined)?.code;
  // An errno name (EACCES): a package's own code around it (ENTRY_INVALID) is not one.
  if (typeof own === 'string' && /^E[A-Z0-9]+$/.test(own)) return own;
  const cause = (error as { cause?: unknown } | undefined)?.cause;
  return cause === undefined || cause === error ? undefined : errnoCode(cause);
}

/**
 * `cannot read <file>: permission denied (EACCES); …` with the file's owner and mode, the uid
 * clat runs as and what to do, when `error` (or its cause) is EACCES or EPERM; undefined for any
 * other error. A file that cannot even be stat'ed is its directory's doing, and says so.
 */
export function readRefusal(file: string, error: unknown): string | undefined {
  const code = errnoCode(error);
  if (code !== 'EACCES' && code !== 'EPERM') return undefined;
  const reason = code === 'EACCES' ? 'permission denied' : 'operation not permitted';
  const self = process.getuid?.();
  const runsAs = self === undefined ? '' : ` and clat runs as uid ${self}`;
  let found: { uid: number; mode: number } | undefined;
  try {
    found = statSync(file);
  } catch {
    found = undefined;
  }
  if (found === undefined) {
    return `cannot read ${file}: ${reason} (${code}); check the owner and mode of its directory ${dirname(file)} (ls -ld)${runsAs === '' ? '' : `, as clat runs as uid ${self}`}`;
  }
  const mode = (found.mode & 0o777).toString(8).padStart(4, '0');
  return `cannot read ${file}: ${reason} (${code}); it belongs to uid ${found.uid} with mode ${mode}${runsAs}: give it back to the user who runs clat (chown) with mode 0600, or run clat as its owner`;
}

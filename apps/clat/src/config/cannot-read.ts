/**
 * The error for one of CLAT's settings files that could not be read. Kept apart from
 * read-small-file.ts, which the prestart loads before the rest of `clat` (and its error text).
 * @module
 */
import { fileErrorText } from '../error-line.js';
import { CliError, CliErrorCode } from '../errors.js';

/**
 * The error for a settings file readSmallFile refused, naming the file: a refused read
 * (EACCES) as one, with whose owner and mode to check, and a directory, FIFO or huge file with
 * what to do about it.
 */
export function cannotReadError(file: string, error: unknown): CliError {
  const refusedBySystem = fileErrorText(error, { action: 'read' });
  const { code, message } = error as NodeJS.ErrnoException;
  const remedy = code === 'EISDIR' || code === 'EINVAL' ? '; move it out of the way' : '';
  return new CliError(
    CliErrorCode.CLI_CONFIG_INVALID,
    refusedBySystem ?? `${file}: cannot be read: ${message}${remedy}`,
    { cause: error },
  );
}

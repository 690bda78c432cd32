/**
 * Reads one of CLAT's own small files (config.json, mcp.json, trust.json, mcp-eras.json) in one
 * synchronous call. `fs/promises`' readFile takes four thread-pool round trips (open, stat, read,
 * close) and each waits for a pool thread to be scheduled: at startup those round trips were most
 * of the wait before a project's first server could spawn, for files of a few KiB that one
 * synchronous read returns in microseconds.
 *
 * Only a regular file of at most {@link SMALL_FILE_MAX_BYTES} is read: a FIFO in its place would
 * block every command forever (it is opened without blocking, then refused), and a file of tens
 * of MiB would be read, parsed and rewritten whole at every command.
 * @module
 */
import { closeSync, constants, fstatSync, openSync, readFileSync } from 'node:fs';

/** The most CLAT reads from one of its settings files (real ones are a few KiB). */
export const SMALL_FILE_MAX_BYTES = 8 * 1024 * 1024;

/** An error with an errno-like code, as the callers' messages quote `.message`. */
function refused(code: string, message: string): NodeJS.ErrnoException {
  const error: NodeJS.ErrnoException = new Error(message);
  error.code = code;
  return error;
}

/**
 * The file's text, or undefined when it does not exist; any other error is thrown as it is. A
 * leading byte order mark (Windows Notepad writes one) is dropped: every caller parses the text as
 * JSON, whose parsers may ignore it (RFC 8259, 8.1) and whose `JSON.parse` does not.
 */
export function readSmallFile(file: string): string | undefined {
  let fd: number;
  try {
    // O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer.
    fd = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  try {
    const stat = fstatSync(fd);
    if (stat.isDirectory()) throw refused('EISDIR', 'it is a directory, not a file');
    if (!stat.isFile()) {
      const kind = stat.isFIFO() ? 'a FIFO' : stat.isSocket() ? 'a socket' : 'a device';
      throw refused('EINVAL', `it is ${kind}, not a regular file`);
    }
    if (stat.size > SMALL_FILE_MAX_BYTES) {
      throw refused(
        'EFBIG',
        `it holds ${(stat.size / 2 ** 20).toFixed(1)} MiB, over the ${SMALL_FILE_MAX_BYTES / 2 ** 20} MiB CLAT reads from a settings file`,
      );
    }
    const text = readFileSync(fd, 'utf8');
    return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  } finally {
    closeSync(fd);
  }
}

/**
 * Reads one of CLAT's own small files (config.json, mcp.json, trust.json, mcp-eras.json) in one
 * synchronous call. `fs/promises`' readFile takes four thread-pool round trips (open, stat, read,
 * close) and each waits for a pool thread to be scheduled: at startup those round trips were most
 * of the wait before a project's first server could spawn, for files of a few KiB that one
 * synchronous read returns in microseconds.
 * @module
 */
import { readFileSync } from 'node:fs';

/** The file's text, or undefined when it does not exist; any other error is thrown as it is. */
export function readSmallFile(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

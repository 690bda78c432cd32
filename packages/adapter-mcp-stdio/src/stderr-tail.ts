/**
 * Feeding a server's stderr into its bounded tail, and reading it to its end.
 * @module
 */

import type { Readable } from 'node:stream';
import { LIMITS, type LineTail, stderrHeadline } from '@clat/kernel';

/**
 * Only the newest lines can stay in the tail, so a flood is cut before it is split into lines.
 */
export function pushNewestLines(tail: LineTail, chunk: string): void {
  let cut = chunk.length;
  for (let seen = 0; seen <= LIMITS.stderrTailLines; seen++) {
    cut = chunk.lastIndexOf('\n', cut - 1);
    if (cut <= 0) {
      tail.push(chunk);
      return;
    }
  }
  // The chunk holds more complete lines than the tail keeps: end the pending partial line
  // (it is older than everything kept) and push only the newest lines.
  tail.push('\n');
  tail.push(chunk.slice(cut + 1));
}

/**
 * A line that only says where a log file is: npm ends every failure with one, so an `npx` server
 * that cannot start would otherwise be quoted by its log's path instead of by its error.
 */
const LOG_POINTER = /\bcomplete log of this run can be found in\b/i;

/**
 * The stderr line an exit is quoted by: a crash's error line (`Error: …`, not the `Node.js v20`
 * banner under its stack), else the newest line that says more than where a log is.
 */
export function lastWords(lines: readonly string[]): string | undefined {
  return stderrHeadline(lines.filter((line) => !LOG_POINTER.test(line))) ?? lines.at(-1);
}

/**
 * Resolves once `stream` has ended or closed, or after `ms`: a pipe a surviving process still
 * holds open must not hold up a teardown.
 */
export function streamEnded(stream: Readable, ms: number): Promise<void> {
  if (stream.readableEnded || stream.destroyed) return Promise.resolve();
  return new Promise((resolveEnded) => {
    const done = () => {
      clearTimeout(timer);
      stream.off('end', done);
      stream.off('close', done);
      resolveEnded();
    };
    const timer = setTimeout(done, ms);
    stream.once('end', done);
    stream.once('close', done);
  });
}

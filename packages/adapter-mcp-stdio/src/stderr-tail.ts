/**
 * Feeding a server's stderr into its bounded tail.
 * @module
 */
import { LIMITS, type LineTail } from '@clat/kernel';

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

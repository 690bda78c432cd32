/**
 * What of a process's stderr explains its failure: the error line a crash prints above its stack
 * (Node's `Error: …`, a traceback's `ValueError: …`), and the last lines that are not stack
 * frames or runtime banners (`Node.js v20.20.2`). Shared by the MCP client's handshake errors, the
 * stdio transport's exit reason and `clat-dsh`'s smoke test; it sits beside `LineTail`, which
 * keeps the tail it reads.
 * @module
 */

/** Lines that say nothing on their own: stack frames, runtime banners, brackets, caret marks. */
const NOISE = /^\s*(?:at\s|Node\.js v\d|[\][{}(),;^~\s]*$)/;
/** A line that states the failure: `Error: …`, `TypeError: …`, `error: …`, `Traceback`, `panic`. */
const HEADLINE = /^\s*(?:[\w.$]*(?:Error|Exception)\b|error\b|fatal\b|panic\b|Traceback\b|ERR_)/i;

/**
 * The one stderr line that best says why a process failed: its last line that states an error
 * (`Error: …`, a traceback's `ValueError: …`), else its newest line that is not a stack frame or runtime banner, else its newest
 * line; undefined for an empty tail.
 */
export function stderrHeadline(tail: readonly string[]): string | undefined {
  const useful = tail.map((line) => line.trim()).filter((line) => !NOISE.test(line));
  return useful.findLast((line) => HEADLINE.test(line)) ?? useful.at(-1) ?? tail.at(-1)?.trim();
}

/**
 * What of a process's stderr tail explains a failure, oldest first: the last line that states
 * an error (a crash's `Error: …` sits above its stack, which the newest lines are full of) and
 * the last three lines that are not stack frames or runtime banners (`Node.js v20.20.2`), at most
 * four in all, trimmed.
 */
export function stderrSummary(tail: readonly string[]): string[] {
  const useful = tail
    .map((line, index) => ({ line: line.trim(), index }))
    .filter(({ line }) => !NOISE.test(line));
  const chosen = new Set(useful.slice(-3).map(({ index }) => index));
  const headline = useful.findLast(({ line }) => HEADLINE.test(line));
  if (headline !== undefined && !chosen.has(headline.index)) {
    chosen.add(headline.index);
    if (chosen.size > 4) chosen.delete(useful.at(-3)?.index ?? -1);
  }
  return useful.filter(({ index }) => chosen.has(index)).map(({ line }) => line);
}

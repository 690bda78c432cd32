/**
 * Terminal columns of text CLAT prints in tables and status lines. `.length` counts UTF-16 code
 * units: a CJK character or an emoji takes two columns and one or two units, a combining mark
 * none and one unit, so `padEnd` misaligned a row and `slice` could cut a surrogate pair (a
 * U+FFFD on screen) or an escape the sanitiser wrote (`\u202` of `\u202e`).
 *
 * East Asian Width comes from `get-east-asian-width` (the Unicode table, kept current by its
 * maintainers); marks and format characters take no column, emoji with emoji presentation two.
 * Counted per code point, not per grapheme cluster (an emoji ZWJ sequence counts each of its
 * emoji): a cluster is then wider than shown, so a cut comes early, never late. Intl.Segmenter
 * would count clusters, but its first use loads ICU's break data (14 ms here), which every
 * `clat tools` would pay.
 * @module
 */
import { sanitizeTerminalLine } from '@clat/kernel';
import { eastAsianWidth } from 'get-east-asian-width';

const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;
const ZERO_WIDTH = /^[\p{Mn}\p{Me}\p{Cf}\p{Default_Ignorable_Code_Point}]$/u;
const EMOJI = /^\p{Emoji_Presentation}$/u;

/** Columns one code point takes. */
function codePointColumns(char: string): number {
  const code = char.codePointAt(0) ?? 0;
  if (code < 0x7f) return code < 0x20 ? 0 : 1;
  if (code < 0xa0) return 0;
  if (ZERO_WIDTH.test(char)) return 0;
  if (EMOJI.test(char)) return 2;
  return eastAsianWidth(code);
}

/** The columns `text` takes on a terminal (text already sanitised: no controls). */
export function columnsOf(text: string): number {
  if (PRINTABLE_ASCII.test(text)) return text.length;
  let columns = 0;
  for (const char of text) columns += codePointColumns(char);
  return columns;
}

/**
 * `raw` sanitised for one line and cut to at most `columns` columns, its last one `…` when cut.
 * It is cut by the raw text's code points, each sanitised on its own, so neither a surrogate pair
 * nor an escape (`\u202e`) is ever split.
 */
export function fitLine(raw: string, columns: number): string {
  const whole = sanitizeTerminalLine(raw);
  if (columnsOf(whole) <= columns) return whole;
  return cutWithEllipsis(shownCodePoints(raw), columns);
}

/** Each code point of `raw` as the sanitiser shows it on its own. */
function* shownCodePoints(raw: string): Generator<string> {
  for (const char of raw) yield sanitizeTerminalLine(char);
}

/** As many whole `pieces` as fit in `columns` less one, then `…`. */
function cutWithEllipsis(pieces: Iterable<string>, columns: number): string {
  let out = '';
  let used = 0;
  for (const piece of pieces) {
    const width = columnsOf(piece);
    if (used + width > columns - 1) break;
    out += piece;
    used += width;
  }
  return `${out}…`;
}

/**
 * Already sanitised `text` cut to the line a redrawn status line may take on `stream`: one column
 * less than the terminal's (80 when unknown), so it never wraps, since `\r` and erase-line only
 * reach the row the cursor is on.
 */
export function statusLine(text: string, stream: unknown): string {
  const width = (stream as { columns?: number }).columns;
  const columns = (typeof width === 'number' && width > 1 ? width : 80) - 1;
  return columnsOf(text) <= columns ? text : cutWithEllipsis(text, columns);
}

/** The width of the terminal `stream` writes to; undefined for a file or a pipe. */
export function terminalColumns(stream: unknown): number | undefined {
  const columns = (stream as { columns?: number }).columns;
  return typeof columns === 'number' && columns > 0 ? columns : undefined;
}

/**
 * The width tool details wrap at on `stream`: its terminal's columns between 40 and 120, else 100
 * (not a terminal: a file, a pipe).
 */
export function detailsWidth(stream: unknown): number {
  const columns = (stream as { columns?: number }).columns;
  return typeof columns === 'number' && columns >= 40 ? Math.min(columns, 120) : 100;
}

/** `text` padded with spaces to `width` columns (as `padEnd`, counting columns). */
export function padColumns(text: string, width: number): string {
  const columns = columnsOf(text);
  return columns >= width ? text : text + ' '.repeat(width - columns);
}

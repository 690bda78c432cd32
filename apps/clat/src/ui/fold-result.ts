/**
 * A tool result as the session shows it: whole when it fits a screenful or so, else its head and
 * a line that says how much was left out and where to get all of it. A result may be up to the
 * 1 MiB limit: 5,000 lines scrolled the call, the prompt and everything before it away.
 * @module
 */

/** At most this many lines of a result are shown in the session. */
const MAX_LINES = 40;
/** And at most this many characters (one 20,000-character line filled 167 rows). */
const MAX_CHARS = 4_000;

/**
 * `text` cut to {@link MAX_LINES} lines and {@link MAX_CHARS} characters, with a last line naming
 * what was left out and `whole`, the command that prints all of it; `text` itself when it fits.
 */
export function foldResult(text: string, whole: string): string {
  // One newline at the very end ends the last line; it starts no line of its own.
  const body = text.endsWith('\n') ? text.slice(0, -1) : text;
  let end = body.length;
  let lines = 1;
  for (let at = body.indexOf('\n'); at !== -1; at = body.indexOf('\n', at + 1)) {
    if (lines === MAX_LINES) {
      end = at;
      break;
    }
    lines += 1;
  }
  if (end > MAX_CHARS) end = MAX_CHARS;
  // A cut between the halves of a surrogate pair would leave half a character.
  const code = body.charCodeAt(end - 1);
  if (end < body.length && code >= 0xd800 && code <= 0xdbff) end -= 1;
  if (end >= body.length) return text;
  const rest = body.slice(end);
  // Cut at a line's end, what is left is whole lines; cut inside one, characters too.
  const atLineEnd = rest.startsWith('\n');
  const moreLines = atLineEnd ? rest.slice(1).split('\n').length : rest.split('\n').length - 1;
  const left = atLineEnd
    ? `${moreLines.toLocaleString('en-US')} more line${moreLines === 1 ? '' : 's'}`
    : moreLines > 0
      ? `the rest of this line and ${moreLines.toLocaleString('en-US')} more line${moreLines === 1 ? '' : 's'}`
      : `${rest.length.toLocaleString('en-US')} more characters`;
  return `${body.slice(0, end)}${atLineEnd ? '' : '…'}\n… ${left} not shown; ${whole} prints the whole result`;
}

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
  let end = text.length;
  let lines = 0;
  for (let at = text.indexOf('\n'); at !== -1 && at < end; at = text.indexOf('\n', at + 1)) {
    lines += 1;
    if (lines === MAX_LINES) end = at;
  }
  if (end > MAX_CHARS) end = MAX_CHARS;
  // A cut between the halves of a surrogate pair would leave half a character.
  const code = text.charCodeAt(end - 1);
  if (end < text.length && code >= 0xd800 && code <= 0xdbff) end -= 1;
  if (end >= text.length) return text;
  const rest = text.slice(end);
  const moreLines = rest.split('\n').length - (rest.startsWith('\n') ? 1 : 0);
  const left =
    moreLines > 1
      ? `${moreLines.toLocaleString('en-US')} more lines`
      : `${rest.length.toLocaleString('en-US')} more characters`;
  return `${text.slice(0, end)}${text[end - 1] === '\n' || rest.startsWith('\n') ? '' : '…'}\n… ${left} not shown; ${whole} prints the whole result`;
}

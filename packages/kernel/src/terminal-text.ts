/**
 * The one terminal sanitiser: untrusted text (anything a server, package or plugin sends) reaches
 * a person only through these functions. Pure and runtime-neutral.
 * @module
 */

// Controls (C0, DEL, C1), format characters (bidi embeddings, overrides and isolates, marks,
// zero-width and invisible operators, tag characters, BOM), other default-ignorable code points
// (invisible fillers, unassigned ones a newer terminal may treat as format), line/paragraph
// separators and lone surrogates. Escaping the introducer of an ESC/CSI/OSC/DCS sequence is
// enough to defuse the whole sequence: what follows it is printable text.
const CLASS = String.raw`[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}\p{Default_Ignorable_Code_Point}]`;
const UNSAFE = new RegExp(CLASS, 'u');
const UNSAFE_ALL = new RegExp(String.raw`\r\n|${CLASS}`, 'gu');

// ZWNJ and ZWJ join letters in Persian and Indic scripts and build emoji sequences, variation
// selectors pick a glyph (emoji or text style); they move and hide nothing, so they stay. U+180E
// (Mongolian vowel separator) sits among the Mongolian selectors but is an invisible format
// character, so it is escaped.
function kept(code: number): boolean {
  return (
    code === 0x09 ||
    code === 0x200c ||
    code === 0x200d ||
    (code >= 0x180b && code <= 0x180d) ||
    code === 0x180f ||
    (code >= 0xfe00 && code <= 0xfe0f) ||
    (code >= 0xe0100 && code <= 0xe01ef)
  );
}

function visible(code: number): string {
  if (code <= 0xff) return `\\x${code.toString(16).padStart(2, '0')}`;
  if (code <= 0xffff) return `\\u${code.toString(16).padStart(4, '0')}`;
  return `\\u{${code.toString(16)}}`;
}

// Combining marks stack above and below their letter, and a few hundred of them ("zalgo" text)
// paint over the lines around it, where they can hide or fake what CLAT printed there. Real
// scripts stack a handful (Vietnamese two, Hebrew with cantillation or Tibetan four or five).
const MAX_MARKS = 6;
const MARK_RUN = new RegExp(String.raw`(\p{M}{${MAX_MARKS}})\p{M}+`, 'gu');

function sanitize(text: string, keepNewlines: boolean): string {
  const stacked = MARK_RUN.test(text);
  MARK_RUN.lastIndex = 0;
  const bounded = stacked ? text.replace(MARK_RUN, '$1') : text;
  return UNSAFE.test(bounded) ? escapeUnsafe(bounded, keepNewlines) : bounded;
}

function escapeUnsafe(text: string, keepNewlines: boolean): string {
  return text.replace(UNSAFE_ALL, (match) => {
    if (match === '\r\n') return keepNewlines ? '\n' : '\\r\\n';
    const code = match.codePointAt(0) ?? 0;
    // In a one-line field a tab would jump to the next tab stop and break a table's columns.
    if (code === 0x09 && !keepNewlines) return ' ';
    if (kept(code)) return match;
    if (code === 0x0a) return keepNewlines ? match : '\\n';
    if (code === 0x0d) return '\\r';
    return visible(code);
  });
}

/**
 * Makes a block of untrusted text safe to print: every control character, escape sequence
 * introducer, bidi override/isolate and other invisible format character is shown as an escape
 * (`\x1b`, `\u202e`); newlines and tabs are kept, `\r\n` becomes `\n`; a letter keeps at most six
 * combining marks.
 */
export function sanitizeTerminalText(text: string): string {
  return sanitize(text, true);
}

/**
 * Like {@link sanitizeTerminalText} for a one-line field (a name, a version, a description in a
 * table): newlines are escaped too, so the value cannot start a line of its own, and a tab is a
 * space.
 */
export function sanitizeTerminalLine(text: string): string {
  return sanitize(text, false);
}

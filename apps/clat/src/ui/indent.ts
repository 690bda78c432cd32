/**
 * Continuation lines of multi-line text shown under a first line of CLAT's own (an error, a
 * question, an approval's arguments).
 * @module
 */

/**
 * `text` with every line after its first indented by two spaces: a line a server put in it never
 * starts at the left margin, where it could pass for a line of CLAT's own (`Allow …? [y/N]`).
 */
export function indentLaterLines(text: string): string {
  // An empty line stays empty: indented, it was two stray spaces (a form's blank line).
  return text.replace(/\n(?!\n|$)/g, '\n  ');
}

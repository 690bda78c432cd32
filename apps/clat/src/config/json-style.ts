/**
 * The layout of a settings file a person wrote: its indentation and line ends. `clat mcp add`
 * rewrites the whole file; a project's `.mcp.json` indented with tabs or checked out with CRLF
 * line ends came back with two spaces and LF, so one added server showed as every line changed.
 * @module
 */

export interface JsonStyle {
  /** One level of indentation: a tab or 1-10 spaces (what JSON.stringify accepts). */
  indent: string;
  eol: '\n' | '\r\n';
}

/** The layout of a new file, and of a file with no indented line to learn from. */
export const DEFAULT_JSON_STYLE: JsonStyle = { indent: '  ', eol: '\n' };

/** The style of `text`: the indentation of its first indented line, and its first line end. */
export function jsonStyleOf(text: string): JsonStyle {
  const newline = text.indexOf('\n');
  const eol = newline > 0 && text.charCodeAt(newline - 1) === 13 ? '\r\n' : '\n';
  const indented = /\n([ \t]+)\S/.exec(text)?.[1];
  let indent = DEFAULT_JSON_STYLE.indent;
  if (indented !== undefined) {
    indent = indented.startsWith('\t') ? '\t' : ' '.repeat(Math.min(indented.length, 10));
  }
  return { indent, eol };
}

/** `value` as JSON text in `style`, ending with a line end. */
export function formatJson(value: unknown, style: JsonStyle): string {
  const text = JSON.stringify(value, null, style.indent);
  return style.eol === '\n' ? `${text}\n` : `${text.replaceAll('\n', '\r\n')}\r\n`;
}

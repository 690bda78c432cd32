/** The text a `--json` command prints. @module */
import { CliError, CliErrorCode } from '../errors.js';

// JSON.stringify leaves these as raw characters, and people do print `--json` on a terminal:
// there DEL and the C1 controls act (U+009B alone starts a CSI sequence), bidi embeddings,
// overrides, isolates and marks reorder what is shown, and U+2028/U+2029 break lines. They can
// only occur inside JSON strings, where `\uXXXX` parses back to the same character, so the
// output stays exact. One regex pass: `clat tools --json` is on a benchmarked path.
const TERMINAL_ACTIVE = /[\u007f-\u009f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]/g;

function unicodeEscape(char: string): string {
  return `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`;
}

/**
 * `value` as indented JSON plus a newline, every character a terminal would act on escaped.
 * JSON.stringify recurses, and what it prints comes from plugins: a value nested too deep for
 * it (or too large for one string) is a CliError naming the command, never a stack overflow
 * reported as an unexpected error.
 */
export function jsonOutput(value: unknown, command: string): string {
  let text: string;
  try {
    text = JSON.stringify(value, null, 2);
  } catch (error) {
    if (!(error instanceof RangeError)) throw error;
    throw new CliError(
      CliErrorCode.CLI_JSON_OUTPUT,
      `${command} --json: the output is nested too deep or too large to print as JSON (${error.message}); rerun without --json`,
      { cause: error },
    );
  }
  return `${text.replace(TERMINAL_ACTIVE, unicodeEscape)}\n`;
}

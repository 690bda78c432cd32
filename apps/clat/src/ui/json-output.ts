/** The text a `--json` command prints. @module */
import { CliError, CliErrorCode } from '../errors.js';

/**
 * `value` as indented JSON plus a newline. JSON.stringify recurses, and what it prints comes from
 * plugins: a value nested too deep for it (or too large for one string) is a CliError naming
 * the command, never a stack overflow reported as an unexpected error.
 */
export function jsonOutput(value: unknown, command: string): string {
  try {
    return `${JSON.stringify(value, null, 2)}\n`;
  } catch (error) {
    if (!(error instanceof RangeError)) throw error;
    throw new CliError(
      CliErrorCode.CLI_JSON_OUTPUT,
      `${command} --json: the output is nested too deep or too large to print as JSON (${error.message}); rerun without --json`,
      { cause: error },
    );
  }
}

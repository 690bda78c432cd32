/** Errors the CLI raises itself; one code table, messages name the file, field or value. @module */

import { ClatError, clatErrorGuard } from '@clat/kernel';

export const CliErrorCode = {
  /** Bad command-line usage: unknown flag, missing argument. */
  CLI_USAGE: 'CLI_USAGE',
  /** A config file (mcp.json, config.json, trust.json) cannot be read or parsed. */
  CLI_CONFIG_INVALID: 'CLI_CONFIG_INVALID',
  /** Another clat process held a config file's lock for the whole wait. */
  CLI_CONFIG_BUSY: 'CLI_CONFIG_BUSY',
  /** The project is not trusted and trust was not granted. */
  CLI_PROJECT_UNTRUSTED: 'CLI_PROJECT_UNTRUSTED',
  /** A named mcp.json entry does not exist. */
  CLI_SERVER_NOT_FOUND: 'CLI_SERVER_NOT_FOUND',
  /** No model provider is configured for `clat exec` or a REPL prompt. */
  CLI_NO_PROVIDER: 'CLI_NO_PROVIDER',
  /** `clat mcp login` failed, timed out or was cancelled. */
  CLI_LOGIN_FAILED: 'CLI_LOGIN_FAILED',
  /** `clat plugin new` would write into a directory that is not empty. */
  CLI_TARGET_EXISTS: 'CLI_TARGET_EXISTS',
  /** A `--json` output is nested too deep (or too large) to serialise. */
  CLI_JSON_OUTPUT: 'CLI_JSON_OUTPUT',
} as const;

export type CliErrorCode = (typeof CliErrorCode)[keyof typeof CliErrorCode];

export class CliError extends ClatError<CliErrorCode> {
  /** Process exit code for this failure. */
  readonly exitCode: number;

  constructor(
    code: CliErrorCode,
    message: string,
    options: { exitCode?: number; cause?: unknown } = {},
  ) {
    super(code, message, { cause: options.cause });
    this.name = 'CliError';
    this.exitCode = options.exitCode ?? (code === CliErrorCode.CLI_USAGE ? 2 : 1);
  }
}

export const isCliError = clatErrorGuard<CliError>('CliError');

/** Errors the CLI raises itself; one code table, messages name the file, field or value. @module */

export const CliErrorCode = {
  /** Bad command-line usage: unknown flag, missing argument. */
  CLI_USAGE: 'CLI_USAGE',
  /** A config file (mcp.json, config.json, trust.json) cannot be read or parsed. */
  CLI_CONFIG_INVALID: 'CLI_CONFIG_INVALID',
  /** The project is not trusted and trust was not granted. */
  CLI_PROJECT_UNTRUSTED: 'CLI_PROJECT_UNTRUSTED',
  /** A named mcp.json entry does not exist. */
  CLI_SERVER_NOT_FOUND: 'CLI_SERVER_NOT_FOUND',
  /** No model provider is configured for `clat exec` or a REPL prompt. */
  CLI_NO_PROVIDER: 'CLI_NO_PROVIDER',
  /** `clat mcp login` failed, timed out or was cancelled. */
  CLI_LOGIN_FAILED: 'CLI_LOGIN_FAILED',
} as const;

export type CliErrorCode = (typeof CliErrorCode)[keyof typeof CliErrorCode];

export class CliError extends Error {
  readonly code: CliErrorCode;
  /** Process exit code for this failure. */
  readonly exitCode: number;

  constructor(
    code: CliErrorCode,
    message: string,
    options: { exitCode?: number; cause?: unknown } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'CliError';
    this.code = code;
    this.exitCode = options.exitCode ?? (code === CliErrorCode.CLI_USAGE ? 2 : 1);
  }
}

export function isCliError(value: unknown): value is CliError {
  return value instanceof CliError;
}

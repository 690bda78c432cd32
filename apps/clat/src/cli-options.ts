/** Shared flag parsing for subcommands (node:util parseArgs, strict). @module */
import { type ParseArgsConfig, parseArgs } from 'node:util';
import { isPermissionMode, PERMISSION_MODES, type PermissionMode } from '@clat/kernel';
import { CliError, CliErrorCode } from './errors.js';
import { JSON_OPTION, MODE_OPTION, PROJECT_OPTIONS } from './project-options.js';

export { JSON_OPTION, MODE_OPTION, PROJECT_OPTIONS };

export const PROJECT_USAGE = `  -C, --project <dir>  Project root (default: the current directory)
      --trust          Trust the project for this invocation (automation)`;

/** The usage line of {@link MODE_OPTION}. */
export const MODE_USAGE = `      --mode <mode>    read-only | project-write | full-access`;

export function parseFlags<T extends NonNullable<ParseArgsConfig['options']>>(
  command: string,
  argv: string[],
  options: T,
): ReturnType<
  typeof parseArgs<{ args: string[]; options: T; allowPositionals: true; strict: true }>
> {
  try {
    return parseArgs({ args: argv, options, allowPositionals: true, strict: true });
  } catch (error) {
    // Node's own text suggests `-- "--bogus"`, which our commands then refuse as an argument.
    const unknown = nodeUnknownOption(error);
    throw new CliError(
      CliErrorCode.CLI_USAGE,
      unknown === undefined
        ? `clat ${command}: ${(error as Error).message}; see "clat ${command} --help"`
        : `unknown option ${JSON.stringify(unknown)} for clat ${command}; see "clat ${command} --help"`,
      { cause: error },
    );
  }
}

function nodeUnknownOption(error: unknown): string | undefined {
  return /^Unknown option '([^']+)'/.exec((error as Error).message)?.[1];
}

/**
 * The option a {@link parseFlags} error names as unknown (undefined for any other error), for a
 * command that can say where a server's own option goes.
 */
export function unknownOptionOf(error: unknown): string | undefined {
  return error instanceof CliError ? nodeUnknownOption(error.cause) : undefined;
}

/** `option` names where the value came from in the message: the flag, or the session's `/mode`. */
export function parseMode(
  value: string | undefined,
  fallback: PermissionMode,
  option = '--mode',
): PermissionMode {
  if (value === undefined) return fallback;
  if (!isPermissionMode(value)) {
    throw new CliError(
      CliErrorCode.CLI_USAGE,
      `${option} ${JSON.stringify(value)} is not a permission mode; use ${PERMISSION_MODES.join(', ')}`,
    );
  }
  return value;
}

/**
 * The mode a run starts in: `--mode`, else config.json's, else project-write. A config.json whose
 * mode cannot be read (`modeUnknown`) may have asked for read-only: the run then starts
 * read-only, and `said` (what the run is: "this call runs", "the session starts") tells why.
 */
export function runMode(
  value: string | undefined,
  user: { file: string; mode: PermissionMode | undefined; modeUnknown: boolean },
  warn: (line: string) => void,
  said: { runs: string; choose: string },
): PermissionMode {
  const fallback: PermissionMode = user.modeUnknown ? 'read-only' : 'project-write';
  if (user.modeUnknown && value === undefined) {
    warn(
      `clat: config: the mode of ${user.file} is unknown, so ${said.runs} read-only; ${said.choose}\n`,
    );
  }
  return parseMode(value, user.mode ?? fallback);
}

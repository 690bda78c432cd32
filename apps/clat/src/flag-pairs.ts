/**
 * Repeated `NAME=value` / `"Name: value"` flags (`--env`, `--header`, `--config`) as one map,
 * for `clat mcp add` and `clat plugin install|update`.
 * @module
 */
import { redactSecrets } from '@clat/kernel';
import { CliError, CliErrorCode } from './errors.js';

export interface FlagPairsOptions {
  /** The flag as typed, `--env`. */
  flag: string;
  /** Where the key ends: `=` (env, config) or `:` (headers). */
  separator: '=' | ':';
  /** The shape the error shows, `NAME=value`. */
  shape: string;
  /** Trims the key and the value (a header's `Name: value` spacing). */
  trim: boolean;
  /** Turns the sentence into the command's own error (its prefix and help pointer). */
  error(message: string): CliError;
}

/**
 * The pairs of one flag's values. Values are often keys: an error names the flag and the value's
 * position, never its text. A key given twice is refused, not silently replaced by the second.
 */
export function flagPairs(
  values: readonly string[] | undefined,
  options: FlagPairsOptions,
): Record<string, string> {
  const { flag } = options;
  const out: Record<string, string> = {};
  for (const [index, value] of (values ?? []).entries()) {
    const at = value.indexOf(options.separator);
    if (at <= 0) {
      throw options.error(
        `${flag} number ${index + 1} must look like ${options.shape} (its text is not shown, since it may hold a key)`,
      );
    }
    const rawKey = value.slice(0, at);
    const key = options.trim ? rawKey.trim() : rawKey;
    if (key === '__proto__') {
      // As a key of a JavaScript object or of JSON read back, it sets the prototype instead:
      // the pair would vanish from the file while the command said it was written.
      throw options.error(`${flag} name "__proto__" cannot be stored; use another name`);
    }
    if (Object.hasOwn(out, key)) {
      throw options.error(
        `${flag} ${JSON.stringify(key)} is given twice (the second would replace the first); give it once`,
      );
    }
    const rest = value.slice(at + 1);
    out[key] = options.trim ? rest.trim() : rest;
  }
  return out;
}

/** A CliError of `clat mcp add` and co.: the sentence as is. */
export function plainUsage(message: string): CliError {
  return new CliError(CliErrorCode.CLI_USAGE, message);
}

/**
 * The keys of `pairs` whose value looks like a key typed as is (the redactor would hide it),
 * not a `${VAR}` that takes it from the environment: what a note about where keys live names.
 */
export function keysTypedAsValues(pairs: Record<string, string>): string[] {
  return Object.keys(pairs).filter((key) => {
    const value = pairs[key] as string;
    return !value.includes('${') && redactSecrets(value) !== value;
  });
}

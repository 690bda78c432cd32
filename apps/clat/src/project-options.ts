/**
 * The flags every project command accepts, apart from cli-options.ts so the command catalog can
 * read them before the kernel loads (prestart).
 * @module
 */
import type { ParseArgsConfig } from 'node:util';

/** Flags every project command accepts. */
export const PROJECT_OPTIONS = {
  project: { type: 'string', short: 'C' },
  trust: { type: 'boolean' },
} as const satisfies ParseArgsConfig['options'];

/** `--json`, of the commands that print JSON (not `exec` or the session: refused there). */
export const JSON_OPTION = {
  json: { type: 'boolean' },
} as const satisfies ParseArgsConfig['options'];

/**
 * `--mode`, of the commands that run tools (`call`, `exec`, the session); the listing commands
 * run none, so they refuse it rather than take a mode they never check.
 */
export const MODE_OPTION = {
  mode: { type: 'string' },
} as const satisfies ParseArgsConfig['options'];

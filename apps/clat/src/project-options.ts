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
  json: { type: 'boolean' },
  mode: { type: 'string' },
} as const satisfies ParseArgsConfig['options'];

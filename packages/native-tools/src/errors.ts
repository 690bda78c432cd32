/**
 * Typed errors of the native tools. Tool-level failures reach the model (or the plugin) as
 * `isError` results carrying one of these codes in `structured.error.code`.
 * @module
 */
import { ClatError, KernelErrorCode } from '@clat/kernel';

export const NativeToolErrorCode = {
  /** Arguments did not match the tool's schema or limits. */
  NATIVE_INVALID_ARGUMENTS: 'NATIVE_INVALID_ARGUMENTS',
  /** A path left the project fence (`..`, a symlink escape, an absolute path a mode forbids). */
  NATIVE_PATH_OUTSIDE_PROJECT: KernelErrorCode.HOST_PATH_OUTSIDE_PROJECT,
  /** The path does not exist. */
  NATIVE_NOT_FOUND: 'NATIVE_NOT_FOUND',
  /** The path exists but has the wrong kind (a directory where a file is needed…). */
  NATIVE_WRONG_KIND: 'NATIVE_WRONG_KIND',
  /** The file looks binary; text tools refuse it. */
  NATIVE_BINARY_FILE: 'NATIVE_BINARY_FILE',
  /** A file or argument is over a size limit. */
  NATIVE_TOO_LARGE: 'NATIVE_TOO_LARGE',
  /** search: a regular expression exceeded its time budget on one file (catastrophic pattern). */
  NATIVE_SEARCH_TOO_SLOW: 'NATIVE_SEARCH_TOO_SLOW',
  /** edit_file found no occurrence of old_str. */
  NATIVE_EDIT_NO_MATCH: 'NATIVE_EDIT_NO_MATCH',
  /** edit_file found old_str more than once. */
  NATIVE_EDIT_AMBIGUOUS: 'NATIVE_EDIT_AMBIGUOUS',
  /** run_command could not start the shell. */
  NATIVE_SPAWN_FAILED: 'NATIVE_SPAWN_FAILED',
  /** run_command was asked for a sandbox this platform cannot provide. */
  NATIVE_SANDBOX_UNAVAILABLE: 'NATIVE_SANDBOX_UNAVAILABLE',
  /** ask_user has no interactive frontend (headless). */
  NATIVE_NO_FRONTEND: 'NATIVE_NO_FRONTEND',
  /** The user declined or cancelled an ask_user question. */
  NATIVE_USER_DECLINED: 'NATIVE_USER_DECLINED',
  /** A file-system operation failed (permissions, disk full…). */
  NATIVE_IO_FAILED: 'NATIVE_IO_FAILED',
} as const;

export type NativeToolErrorCode = (typeof NativeToolErrorCode)[keyof typeof NativeToolErrorCode];

/** A tool-level failure: reported to the caller as an `isError` result, never thrown past the tool. */
export class NativeToolError extends ClatError<NativeToolErrorCode> {
  constructor(code: NativeToolErrorCode, message: string, options: { cause?: unknown } = {}) {
    super(code, message, options);
    this.name = 'NativeToolError';
  }
}

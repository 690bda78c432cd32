/**
 * Why a server command could not be started, in words a person can act on.
 * @module
 */
import { errorMessage } from '@clat/kernel';

/** The reason for a spawn failure; `command` is already redacted. */
export function spawnFailureReason(error: unknown, command: string): string {
  const code = (error as NodeJS.ErrnoException).code;
  return code === 'ENOENT'
    ? `command "${command}" was not found (ENOENT); check the command and PATH`
    : code === 'EACCES'
      ? `command "${command}" is not executable (EACCES)`
      : `command "${command}" could not be started: ${errorMessage(error)}`;
}

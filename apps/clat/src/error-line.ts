/** The one line the CLI prints for a failure a command reports. @module */
import { describeClatError } from '@clat/kernel';

/**
 * `clat: <message> [CODE]` for any ClatError (of any package), `clat: <message>` otherwise; every
 * command prints failures through here so the format (and later sanitising) has one owner.
 */
export function errorLine(error: unknown, suffix = ''): string {
  return `clat: ${describeClatError(error)}${suffix}\n`;
}

/** The one line the CLI prints for a failure a command reports. @module */
import { describeClatError, sanitizeTerminalText } from '@clat/kernel';

/**
 * `clat: <message> [CODE]` for any ClatError (of any package), `clat: <message>` otherwise; every
 * command prints failures through here so the format has one owner. Error text carries what
 * servers and packages sent: it reaches the terminal sanitised.
 */
export function errorLine(error: unknown, suffix = ''): string {
  return `clat: ${sanitizeTerminalText(describeClatError(error))}${suffix}\n`;
}

/** The one line the CLI prints for a failure a command reports. @module */
import { describeClatError, errorMessage, redactSecrets, sanitizeTerminalText } from '@clat/kernel';

/**
 * `clat: <message> [CODE]` for any ClatError (of any package), `clat: <message>` otherwise; every
 * command prints failures through here so the format has one owner. Error text carries what
 * servers and packages sent: it reaches the terminal sanitised, and redacted as a safety net for
 * a message that quotes a key it should not have.
 */
export function errorLine(error: unknown, suffix = ''): string {
  return `clat: ${indented(sanitizeTerminalText(redactSecrets(describeClatError(error))))}${suffix}\n`;
}

/**
 * A message's later lines, indented: a line a server put in its error text never starts at the
 * left margin, where it could pass for a line of CLAT's own (`Allow …? [y/N]`, `clat: …`).
 */
function indented(text: string): string {
  return text.replace(/\n/g, '\n  ');
}

/**
 * The report of a bug (anything but a ClatError): one redacted line, and under `CLAT_DEBUG` the
 * stack, redacted too since its first line repeats the message.
 */
export function unexpectedErrorLine(error: unknown, env: NodeJS.ProcessEnv): string {
  const detail =
    env.CLAT_DEBUG === undefined ? '' : `\n${(error as Error)?.stack ?? String(error)}`;
  const text = redactSecrets(`unexpected error: ${errorMessage(error)}${detail}`);
  return `clat: ${sanitizeTerminalText(text)}\n`;
}

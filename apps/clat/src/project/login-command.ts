/** The commands shown for an HTTP entry that needs a login or a token. @module */
import { redactSecrets, sanitizeTerminalLine } from '@clat/kernel';

/** The command a person runs to log in to `name` (shown in /mcp, errors and headless runs). */
export function loginCommand(name: string): string {
  return `clat mcp login ${/^[\w.@-]+$/.test(name) ? name : JSON.stringify(name)}`;
}

/**
 * The `clat mcp add` that gives `name` a static token instead of a login: for a server that
 * answers 401 and publishes no OAuth metadata. Quoted for a POSIX shell; the URL's secret-looking
 * parts are redacted.
 */
export function staticTokenCommand(name: string, url: string): string {
  const quote = (text: string) => `'${text.replace(/'/g, `'\\''`)}'`;
  return `clat mcp add ${quote(name)} --url ${quote(sanitizeTerminalLine(redactSecrets(url)))} --header "Authorization: Bearer <token>" --force`;
}

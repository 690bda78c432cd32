/** The commands shown for an HTTP entry that needs a login or a token. @module */
import { redactSecrets, sanitizeTerminalLine } from '@clat/kernel';
import { operandCommand, type ProjectFlagsShown } from './project-command.js';

/**
 * The command a person runs to log in to `name` (shown in /mcp, errors and headless runs), with
 * the project flags of the run that shows it: a server of a project's own `.clat/mcp.json` is
 * found only in that project (`-C`), and only while it is trusted (`--trust` for this run).
 */
export function loginCommand(name: string, flags: ProjectFlagsShown = {}): string {
  return operandCommand(['mcp', 'login'], name, flags);
}

/**
 * The `clat mcp add` that gives `name` a static token instead of a login: for a server that
 * answers 401 and publishes no OAuth metadata. It edits the user's mcp.json, so it needs no
 * project flags. Quoted for a POSIX shell; the URL's secret-looking parts are redacted.
 */
export function staticTokenCommand(
  name: string,
  url: string,
  headers: readonly string[] = [],
): string {
  const others = headers.filter((header) => header.toLowerCase() !== 'authorization');
  return `clat mcp add ${quote(name)} --url ${shownUrl(url)} --header "Authorization: Bearer <token>"${keptHeaders(others)} --force`;
}

/**
 * What to do for a server whose authorization server offers no client registration: register a
 * client there by hand, then the `clat mcp add` that configures it (user scope, as above).
 */
export function registeredClientHint(
  name: string,
  url: string,
  headers: readonly string[] = [],
): string {
  return `register CLAT there as an OAuth client with the redirect URI http://localhost:<port>/callback (a free port of your choosing), then run: clat mcp add ${quote(name)} --url ${shownUrl(url)} --client-id <id> --callback-port <port>${keptHeaders(headers)} --force (when the client has a secret, add --client-secret), and log in again`;
}

/**
 * The entry's other headers as `--header` flags with a placeholder for each value (which may be
 * a key, so never shown): `--force` replaces the whole entry, and would drop them otherwise.
 */
function keptHeaders(headers: readonly string[]): string {
  return headers
    .map((header) => ` --header ${quote(`${sanitizeTerminalLine(header)}: <value>`)}`)
    .join('');
}

function quote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

/** The URL quoted for a POSIX shell, its secret-looking parts redacted. */
function shownUrl(url: string): string {
  return quote(sanitizeTerminalLine(redactSecrets(url)));
}

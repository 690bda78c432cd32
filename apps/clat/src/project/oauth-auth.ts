/**
 * The OAuth side of `clat`'s HTTP servers: tokens in the 0600 store under `<clat home>/oauth`,
 * which `clat-gateway` reads too. Loaded only when an HTTP entry is mounted.
 * @module
 */

import type { McpServerConfig } from '@clat/adapter-mcp';
import { type OAuthClient, storedOAuth } from '@clat/adapter-mcp-http';
import { oauthDirIn } from '../config/clat-home.js';
import { loginCommand, registeredClientHint, staticTokenCommand } from './login-command.js';

/**
 * The OAuth client of an HTTP entry, unless its configured headers already authorize it.
 * `login` names the command that logs in to a server (with the run's project flags).
 */
export function oauthClientFor(
  server: Extract<McpServerConfig, { transport: 'http' }>,
  clatHome: string,
  login: (name: string) => string = loginCommand,
): OAuthClient | undefined {
  return storedOAuth({
    dir: oauthDirIn(clatHome),
    clientName: 'CLAT',
    loginHint: (entry) => `run \`${login(entry.name)}\``,
    headerHint: (entry) =>
      `if it takes a token, run: ${staticTokenCommand(entry.name, entry.url, Object.keys(entry.headers ?? {}))}`,
    clientHint: (entry) =>
      registeredClientHint(entry.name, entry.url, Object.keys(entry.headers ?? {})),
  })(server);
}

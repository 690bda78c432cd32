/**
 * The OAuth side of `clat`'s HTTP servers: which entries get an OAuth client (tokens in the
 * 0600 store under `<clat home>/oauth`). Loaded only when an HTTP entry is mounted.
 * @module
 */

import type { McpServerConfig } from '@clat/adapter-mcp';
import { OAuthClient } from '@clat/adapter-mcp-http';
import { oauthDirIn } from '../config/clat-home.js';
import { FileTokenStore } from '../config/oauth-token-store.js';
import { loginCommand } from './login-command.js';

/**
 * The OAuth client of an HTTP entry, unless its configured headers already authorize it (a
 * static `Authorization` header wins: the user chose it).
 */
export function oauthClientFor(
  server: Extract<McpServerConfig, { transport: 'http' }>,
  clatHome: string,
): OAuthClient | undefined {
  const headers = Object.keys(server.headers ?? {}).map((name) => name.toLowerCase());
  if (headers.includes('authorization') && server.oauth === undefined) return undefined;
  return new OAuthClient({
    serverUrl: server.url,
    store: new FileTokenStore(oauthDirIn(clatHome)),
    config: server.oauth,
    clientName: 'CLAT',
    loginHint: `run \`${loginCommand(server.name)}\``,
  });
}

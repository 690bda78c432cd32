/**
 * The OAuth side of `clat`'s HTTP servers: which entries get an OAuth client (tokens in the
 * 0600 store under `<clat home>/oauth`) and the command that logs in to one.
 * @module
 */

import type { McpServerConfig } from '@clat/adapter-mcp';
import { OAuthClient } from '@clat/adapter-mcp-http';
import { oauthDirIn } from '../config/clat-home.js';
import { FileTokenStore } from '../config/oauth-token-store.js';

/** The command a person runs to log in to `name` (shown in /mcp, errors and headless runs). */
export function loginCommand(name: string): string {
  return `clat mcp login ${/^[\w.@-]+$/.test(name) ? name : JSON.stringify(name)}`;
}

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

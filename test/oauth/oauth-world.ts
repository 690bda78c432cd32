/**
 * The OAuth world the CLI and gateway journeys share: a real OpenID provider and an MCP server
 * it protects on 127.0.0.1, configured as `remote` in a sandbox's trusted project, and the one
 * token file `clat mcp login` writes. Tests read the token only to prove it leaks nowhere.
 * @module
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { CliSandbox } from '../cli/support.js';
import {
  type OidcAuthorizationServer,
  type OidcOptions,
  startOidcAuthorizationServer,
} from '../fixtures/oauth/oidc-as.js';
import {
  type ProtectedServer,
  startProtectedMcpServer,
} from '../fixtures/oauth/protected-mcp-server.js';

/** `$BROWSER` for `clat mcp login`: follows the authorization URL like a person who consents. */
export const BROWSER = `${process.execPath} ${fileURLToPath(new URL('../fixtures/oauth/browser.mjs', import.meta.url))}`;

export interface OAuthWorld {
  as: OidcAuthorizationServer;
  mcp: ProtectedServer;
  close(): Promise<void>;
}

/**
 * Starts both servers and writes `remote` into the sandbox's mcp.json; trusting is the caller's.
 * `sse`: the MCP server speaks HTTP+SSE (2024-11-05) at `/sse` instead of Streamable HTTP;
 * `challengeScope`: the `scope` its 401 challenge names; `as`: the provider's own options.
 */
export async function startOAuthWorld(
  sandbox: CliSandbox,
  options: { sse?: boolean; challengeScope?: string; as?: OidcOptions } = {},
): Promise<OAuthWorld> {
  const as = await startOidcAuthorizationServer(options.as);
  const mcp = await startProtectedMcpServer({
    sse: options.sse === true,
    ...(options.challengeScope === undefined ? {} : { challengeScope: options.challengeScope }),
    validate: (token, resource) => as.validate(token, resource),
    metadata: ({ resource }) => ({
      resource,
      authorization_servers: [as.issuer],
      scopes_supported: ['mcp:read'],
    }),
  });
  await sandbox.writeMcp({ mcpServers: { remote: { url: mcp.url } } });
  return {
    as,
    mcp,
    close: async () => {
      await mcp.close();
      await as.close();
    },
  };
}

export interface TokenFile {
  serverUrl: string;
  issuer: string;
  client: { clientId: string; source: string };
  tokens: { accessToken: string; refreshToken?: string };
}

/** The one token file under `<home>/oauth`; throws when no login wrote one. */
export async function readTokenFile(home: string): Promise<{ path: string; record: TokenFile }> {
  const dir = join(home, 'oauth');
  const [name] = await readdir(dir);
  if (name === undefined) throw new Error('no token file was written');
  const path = join(dir, name);
  return { path, record: JSON.parse(await readFile(path, 'utf8')) as TokenFile };
}

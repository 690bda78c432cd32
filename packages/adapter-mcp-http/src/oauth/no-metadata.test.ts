/**
 * A 401 from a server that publishes no OAuth metadata: the client says it most likely wants a
 * static token (with the host's hint) instead of sending a person to a login that would fail.
 */
import { describe, expect, it } from 'vitest';
import { isHttpTransportError } from '../errors.js';
import { OAuthClient } from './oauth-client.js';
import type { TokenStore } from './token-store.js';

const SERVER = 'http://127.0.0.1:9/mcp';
const ORIGIN = 'http://127.0.0.1:9';

const emptyStore: TokenStore = {
  read: async () => undefined,
  write: async () => {},
  remove: async () => false,
};

/** A fetch that answers from `documents` by path (404 otherwise) and records each request. */
function serve(documents: Record<string, unknown>) {
  const seen: string[] = [];
  const fetch = async (input: string | URL | Request, init?: RequestInit) => {
    const url = new URL(String(input instanceof Request ? input.url : input));
    seen.push(`${init?.method ?? 'GET'} ${url.pathname}`);
    const doc = documents[url.pathname];
    return doc === undefined
      ? new Response('not found', { status: 404 })
      : Response.json(doc, { status: 200 });
  };
  return { seen, fetch: fetch as typeof globalThis.fetch };
}

function client(fetch: typeof globalThis.fetch): OAuthClient {
  return new OAuthClient({
    serverUrl: SERVER,
    store: emptyStore,
    loginHint: 'run `clat mcp login web`',
    headerHint: 'if it takes a token, run: clat mcp add web --header …',
    fetch,
  });
}

async function failure(oauth: OAuthClient, wwwAuthenticate: string | null = null) {
  const error = await oauth.onUnauthorized({ status: 401, wwwAuthenticate }).then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!isHttpTransportError(error)) throw new Error(`expected a transport error, got ${error}`);
  return error;
}

describe('a 401 without OAuth metadata', () => {
  it('says the server most likely wants a static token, with the hint, after GETs only', async () => {
    const { seen, fetch } = serve({});
    const oauth = client(fetch);
    const error = await failure(oauth);
    expect(error.code).toBe('OAUTH_NO_METADATA');
    expect(error.message).toBe(
      `MCP server at ${ORIGIN} answered HTTP 401 and publishes no OAuth metadata (no resource_metadata challenge in its 401, no /.well-known/oauth-protected-resource, no authorization server metadata), so it probably expects a static Authorization header instead of a login; if it takes a token, run: clat mcp add web --header …`,
    );
    expect(oauth.loginRequired).toBe(false);
    // Nothing is registered or authorized to find out.
    expect(seen.every((request) => request.startsWith('GET /.well-known/'))).toBe(true);
    expect(seen).toContain('GET /.well-known/oauth-protected-resource/mcp');
    expect(seen).toContain('GET /.well-known/oauth-authorization-server');
  });

  it('still needs a login when the server publishes protected resource metadata', async () => {
    const { fetch } = serve({
      '/.well-known/oauth-protected-resource/mcp': {
        resource: SERVER,
        authorization_servers: [ORIGIN],
      },
      '/.well-known/oauth-authorization-server': {
        issuer: ORIGIN,
        authorization_endpoint: `${ORIGIN}/authorize`,
        token_endpoint: `${ORIGIN}/token`,
        code_challenge_methods_supported: ['S256'],
      },
    });
    const oauth = client(fetch);
    const error = await failure(oauth);
    expect(error.code).toBe('OAUTH_LOGIN_REQUIRED');
    expect(error.message).toBe(`MCP server at ${ORIGIN} needs login: run \`clat mcp login web\``);
    expect(oauth.loginRequired).toBe(true);
  });

  it('still needs a login when only authorization server metadata exists (2025-03-26)', async () => {
    const { fetch } = serve({
      '/.well-known/oauth-authorization-server': {
        issuer: ORIGIN,
        authorization_endpoint: `${ORIGIN}/authorize`,
        token_endpoint: `${ORIGIN}/token`,
        code_challenge_methods_supported: ['S256'],
      },
    });
    expect((await failure(client(fetch))).code).toBe('OAUTH_LOGIN_REQUIRED');
  });

  it('leaves a discovery that fails for another reason to the login, which names it', async () => {
    const { fetch } = serve({
      '/.well-known/oauth-protected-resource/mcp': {
        resource: 'https://elsewhere.example/mcp',
        authorization_servers: [ORIGIN],
      },
    });
    expect((await failure(client(fetch))).code).toBe('OAUTH_LOGIN_REQUIRED');
  });
});

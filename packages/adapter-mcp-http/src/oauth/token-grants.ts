/** Token endpoint requests, each carrying the RFC 8707 `resource` verbatim. @module */
import {
  type AuthorizationServer,
  authorizationCodeGrantRequest,
  clientCredentialsGrantRequest,
  processAuthorizationCodeResponse,
  processClientCredentialsResponse,
  processRefreshTokenResponse,
  processRevocationResponse,
  ResponseBodyError,
  refreshTokenGrantRequest,
  revocationRequest,
  type TokenEndpointResponse,
  WWWAuthenticateChallengeError,
} from 'oauth4webapi';
import { HttpTransportError } from '../errors.js';
import { clientAuthOf, oauthClientOf } from './client-identity.js';
import { type OAuthHttp, oauthFailureText, requestOptions } from './oauth-http.js';
import type { StoredClient, StoredTokens } from './token-store.js';

export interface GrantContext {
  as: AuthorizationServer;
  client: StoredClient;
  /** The secret: a registered client's stored one or the configured one. */
  secret: string | undefined;
  resource: string;
  origin: string;
  http: OAuthHttp;
}

function tokensOf(response: TokenEndpointResponse, previous?: StoredTokens): StoredTokens {
  const out: StoredTokens = { accessToken: response.access_token };
  // Public clients get rotated refresh tokens: keep the new one, else the one we had.
  const refresh = response.refresh_token ?? previous?.refreshToken;
  if (refresh !== undefined) out.refreshToken = refresh;
  if (typeof response.expires_in === 'number')
    out.expiresAt = Date.now() + response.expires_in * 1000;
  const scope = response.scope ?? previous?.scope;
  if (scope !== undefined) out.scope = scope;
  return out;
}

function tokenUrl(ctx: GrantContext): URL {
  return new URL(String(ctx.as.token_endpoint));
}

function failure(
  ctx: Pick<GrantContext, 'as' | 'origin'>,
  what: string,
  error: unknown,
): HttpTransportError {
  return new HttpTransportError(
    'OAUTH_TOKEN',
    ctx.origin,
    `${what} at ${ctx.as.issuer} failed (${oauthFailureText(error)})`,
    { cause: error },
  );
}

export async function exchangeCode(
  ctx: GrantContext,
  callback: URLSearchParams,
  redirectUri: string,
  verifier: string,
): Promise<StoredTokens> {
  const client = oauthClientOf(ctx.client);
  try {
    const response = await authorizationCodeGrantRequest(
      ctx.as,
      client,
      clientAuthOf(ctx.client, ctx.secret),
      callback,
      redirectUri,
      verifier,
      {
        ...requestOptions(ctx.http, tokenUrl(ctx)),
        additionalParameters: { resource: ctx.resource },
      },
    );
    return tokensOf(await processAuthorizationCodeResponse(ctx.as, client, response));
  } catch (error) {
    throw failure(ctx, 'the authorization code exchange', error);
  }
}

export async function refreshTokens(
  ctx: GrantContext,
  previous: StoredTokens & { refreshToken: string },
): Promise<StoredTokens> {
  const client = oauthClientOf(ctx.client);
  try {
    const response = await refreshTokenGrantRequest(
      ctx.as,
      client,
      clientAuthOf(ctx.client, ctx.secret),
      previous.refreshToken,
      {
        ...requestOptions(ctx.http, tokenUrl(ctx)),
        additionalParameters: { resource: ctx.resource },
      },
    );
    return tokensOf(await processRefreshTokenResponse(ctx.as, client, response), previous);
  } catch (error) {
    throw failure(ctx, 'the token refresh', error);
  }
}

/** OAuth error codes that say "try later", not "this grant is dead" (RFC 6749 §4.1.2.1). */
const TRANSIENT_OAUTH_ERRORS: ReadonlySet<string> = new Set([
  'temporarily_unavailable',
  'server_error',
]);

/**
 * True when the token endpoint refused the grant itself: an OAuth error response with status 400
 * or 401 (RFC 6749 §5.2: `invalid_grant` for a revoked or expired refresh token, `invalid_client`),
 * or a 401 challenge. Then the tokens are dead and only a login helps. A network failure, a
 * timeout, a 5xx or `temporarily_unavailable` is not a refusal: the same refresh token may work on
 * the next request, so it must not be thrown away.
 */
export function grantRefused(error: unknown): boolean {
  let current: unknown = error;
  for (let depth = 0; depth < 4 && current instanceof Error; depth++) {
    if (current instanceof ResponseBodyError) {
      return (
        (current.status === 400 || current.status === 401) &&
        !TRANSIENT_OAUTH_ERRORS.has(current.error)
      );
    }
    if (current instanceof WWWAuthenticateChallengeError) return current.status === 401;
    current = current.cause;
  }
  return false;
}

/**
 * Why the token endpoint refused a grant, for the person: its OAuth error code (`invalid_grant`:
 * the refresh token was revoked or expired) when it is a plain code, else its HTTP status.
 */
export function refusalReason(error: unknown): string {
  let current: unknown = error;
  for (let depth = 0; depth < 4 && current instanceof Error; depth++) {
    if (current instanceof ResponseBodyError) {
      const code = /^[A-Za-z0-9_.-]{1,64}$/.test(current.error) ? current.error : 'an error';
      return code === 'invalid_grant' ? 'invalid_grant, revoked or expired' : code;
    }
    if (current instanceof WWWAuthenticateChallengeError) return `HTTP ${current.status}`;
    current = current.cause;
  }
  return 'refused';
}

/** OAuth error codes that say the authorization server does not accept the client itself. */
const CLIENT_ERRORS: ReadonlySet<string> = new Set(['invalid_client', 'unauthorized_client']);

/**
 * True when the token endpoint refused the client, not only the grant (RFC 6749 §5.2:
 * `invalid_client`, `unauthorized_client`): a registered client the server expired or purged.
 * Reusing it would send every later login to an authorization page that refuses it.
 */
export function clientRefused(error: unknown): boolean {
  let current: unknown = error;
  for (let depth = 0; depth < 4 && current instanceof Error; depth++) {
    if (current instanceof ResponseBodyError) return CLIENT_ERRORS.has(current.error);
    current = current.cause;
  }
  return false;
}

export async function clientCredentialsTokens(
  ctx: GrantContext,
  scopes: string[],
): Promise<StoredTokens> {
  const client = oauthClientOf(ctx.client);
  const parameters: Record<string, string> = { resource: ctx.resource };
  if (scopes.length > 0) parameters.scope = scopes.join(' ');
  try {
    const response = await clientCredentialsGrantRequest(
      ctx.as,
      client,
      clientAuthOf(ctx.client, ctx.secret),
      parameters,
      requestOptions(ctx.http, tokenUrl(ctx)),
    );
    return tokensOf(await processClientCredentialsResponse(ctx.as, client, response));
  } catch (error) {
    throw failure(ctx, 'the client credentials grant', error);
  }
}

/**
 * Revokes one token at the authorization server's RFC 7009 endpoint, authenticating as the
 * client that holds it. The caller checks that the metadata names `revocation_endpoint`.
 */
export async function revokeToken(
  ctx: Omit<GrantContext, 'resource'>,
  token: string,
  hint: 'refresh_token' | 'access_token',
): Promise<void> {
  const client = oauthClientOf(ctx.client);
  try {
    const response = await revocationRequest(
      ctx.as,
      client,
      clientAuthOf(ctx.client, ctx.secret),
      token,
      {
        ...requestOptions(ctx.http, new URL(String(ctx.as.revocation_endpoint))),
        additionalParameters: { token_type_hint: hint },
      },
    );
    await processRevocationResponse(response);
  } catch (error) {
    throw failure(ctx, `revoking the ${hint.replace('_', ' ')}`, error);
  }
}

/**
 * The browser leg: PKCE S256, `state`, `resource`, scopes, a loopback redirect, the RFC 9207
 * `iss` check, then the code exchange at the recorded authorization server.
 * @module
 */
import {
  type AuthorizationServer,
  calculatePKCECodeChallenge,
  generateRandomCodeVerifier,
  generateRandomState,
  validateAuthResponse,
} from 'oauth4webapi';
import { HttpTransportError } from '../errors.js';
import { type OAuthClientConfig, oauthClientOf, resolveClient } from './client-identity.js';
import { type LoopbackListener, startLoopbackListener } from './loopback-listener.js';
import { checkEndpoint, type OAuthHttp, oauthFailureText } from './oauth-http.js';
import { exchangeCode } from './token-grants.js';
import type { StoredClient, StoredTokens } from './token-store.js';

/** How the person is sent to the authorization URL and how long CLAT waits for them. */
export interface BrowserLeg {
  /** Shows and opens the URL (never through a shell). */
  open(url: string): Promise<void> | void;
  signal: AbortSignal;
  timeoutMs: number;
}

export interface AuthorizationCodeOptions {
  as: AuthorizationServer;
  config: OAuthClientConfig | undefined;
  stored: StoredClient | undefined;
  resource: string;
  scopes: string[];
  clientName: string;
  /** Said when the authorization server offers no client registration. */
  clientHint?: string | undefined;
  origin: string;
  http: OAuthHttp;
  browser: BrowserLeg;
}

export interface AuthorizationCodeResult {
  client: StoredClient;
  tokens: StoredTokens;
}

/** The loopback port a registered client's redirect URI names, to listen on it again. */
function registeredPort(stored: StoredClient | undefined): number | undefined {
  if (stored?.source !== 'registration' || stored.redirectUri === undefined) return undefined;
  let port: number;
  try {
    port = Number(new URL(stored.redirectUri).port);
  } catch {
    return undefined;
  }
  return Number.isInteger(port) && port > 0 ? port : undefined;
}

export async function runAuthorizationCode(
  options: AuthorizationCodeOptions,
): Promise<AuthorizationCodeResult> {
  const { as, origin, browser } = options;
  const endpoint = checkEndpoint(as.authorization_endpoint, 'authorization_endpoint', origin);
  const fixed = options.config?.callbackPort;
  let listener: LoopbackListener;
  try {
    listener = await startLoopbackListener(
      fixed === undefined ? { preferred: registeredPort(options.stored) } : { fixed },
    );
  } catch (error) {
    // Only a fixed port fails: the registered redirect URI names it, so no other will do.
    throw new HttpTransportError(
      'OAUTH_AUTHORIZATION',
      origin,
      `cannot listen on localhost port ${fixed} ("oauth.callbackPort"; ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}): the client's registered redirect URI http://localhost:${fixed}/callback needs it; stop what listens there and log in again`,
      { cause: error },
    );
  }
  try {
    const scope = options.scopes.length > 0 ? options.scopes.join(' ') : undefined;
    const client = await resolveClient({
      as,
      config: options.config,
      stored: options.stored,
      redirectUri: listener.redirectUri,
      clientName: options.clientName,
      clientHint: options.clientHint,
      origin,
      http: options.http,
    });
    const verifier = generateRandomCodeVerifier();
    const state = generateRandomState();
    const url = new URL(endpoint.href);
    const params = url.searchParams;
    params.set('response_type', 'code');
    params.set('client_id', client.clientId);
    params.set('redirect_uri', listener.redirectUri);
    params.set('code_challenge', await calculatePKCECodeChallenge(verifier));
    params.set('code_challenge_method', 'S256');
    params.set('state', state);
    params.set('resource', options.resource);
    if (scope !== undefined) params.set('scope', scope);
    // OpenID providers issue a refresh token for offline_access only after explicit consent.
    if (options.scopes.includes('offline_access')) params.set('prompt', 'consent');
    const timeout = AbortSignal.timeout(browser.timeoutMs);
    // Waiting before the browser opens: a fast browser's redirect must not find no one waiting.
    // Only this login's `state` is taken; a stray request to the port cannot end the login.
    const waiting = listener.callback(
      AbortSignal.any([browser.signal, timeout]),
      (params) => params.get('state') === state,
    );
    waiting.catch(() => undefined);
    await browser.open(url.href);
    let callback: URLSearchParams;
    try {
      callback = await waiting;
    } catch {
      throw new HttpTransportError(
        'OAUTH_AUTHORIZATION',
        origin,
        browser.signal.aborted
          ? `login to MCP server at ${origin} was cancelled`
          : `login to MCP server at ${origin} timed out after ${Math.round(browser.timeoutMs / 1000)} s without a redirect from the browser`,
      );
    }
    let validated: URLSearchParams;
    try {
      // Checks `iss` (RFC 9207) and `state` before the error or code is looked at.
      validated = validateAuthResponse(as, oauthClientOf(client), callback, state);
    } catch (error) {
      const iss = callback.get('iss');
      throw new HttpTransportError(
        'OAUTH_AUTHORIZATION',
        origin,
        iss !== null && iss !== as.issuer
          ? `the authorization response for MCP server at ${origin} came from the wrong issuer (${JSON.stringify(iss.slice(0, 200))}, not ${JSON.stringify(as.issuer)}); nothing was redeemed`
          : `the authorization response for MCP server at ${origin} was refused (${oauthFailureText(error)}); nothing was redeemed`,
        { cause: error },
      );
    }
    const secret = client.clientSecret ?? options.config?.clientSecret;
    const tokens = await exchangeCode(
      { as, client, secret, resource: options.resource, origin, http: options.http },
      validated,
      listener.redirectUri,
      verifier,
    );
    return { client, tokens };
  } finally {
    await listener.close();
  }
}

/**
 * How the OAuth client reaches authorization and metadata servers: https only, plain http only
 * for loopback hosts (local development and tests), every exchange bounded in time.
 * @module
 */
import { allowInsecureRequests, customFetch } from 'oauth4webapi';
import { HttpTransportError } from '../errors.js';

/** One bound for every metadata, registration and token exchange. */
export const OAUTH_REQUEST_TIMEOUT_MS = 30_000;

export interface OAuthHttp {
  fetch: typeof fetch;
  /** Aborts every exchange (Ctrl-C, scope close). */
  signal?: AbortSignal | undefined;
}

const LOOPBACK_HOSTS = new Set(['127.0.0.1', '[::1]', 'localhost']);

export function isLoopback(url: URL): boolean {
  return LOOPBACK_HOSTS.has(url.hostname) || url.hostname.startsWith('127.');
}

/** IPv4 169.254.0.0/16 and IPv6 fe80::/10: where cloud instance metadata services answer. */
function isLinkLocal(url: URL): boolean {
  const host = url.hostname;
  return host.startsWith('169.254.') || /^\[fe[89ab][0-9a-f]:/i.test(host);
}

/**
 * Where a URL points, for the rule that a server may send CLAT only to its own kind of address:
 * a remote server that names a loopback or link-local endpoint would make CLAT request a local
 * service (a developer's admin port, a cloud metadata service) on its behalf. Judged on the URL's
 * literal host (a DNS name is `remote`).
 */
function addressClass(url: URL): 'loopback' | 'link-local' | 'remote' {
  if (isLoopback(url) || url.hostname === '0.0.0.0' || url.hostname === '[::]') return 'loopback';
  return isLinkLocal(url) ? 'link-local' : 'remote';
}

/**
 * Refuses a URL a server pointed us to unless it is https, or http on a loopback host, and unless
 * a loopback or link-local target comes from a server on such an address itself. Applies to
 * metadata, authorization, token and registration endpoints alike (they all come from the server).
 */
export function checkEndpoint(value: unknown, what: string, origin: string): URL {
  let url: URL;
  try {
    url = new URL(String(value));
  } catch {
    throw new HttpTransportError(
      'OAUTH_DISCOVERY',
      origin,
      `${what} ${JSON.stringify(String(value).slice(0, 200))} of MCP server at ${origin} is not an absolute URL`,
    );
  }
  const target = addressClass(url);
  if (target !== 'remote') {
    const server = URL.canParse(origin) ? addressClass(new URL(origin)) : 'remote';
    if (server !== target) {
      throw new HttpTransportError(
        'OAUTH_DISCOVERY',
        origin,
        `${what} ${url.origin} of MCP server at ${origin} is a ${target} address, which only a server on a ${target} address may name`,
      );
    }
  }
  if (url.protocol === 'https:' || (url.protocol === 'http:' && isLoopback(url))) return url;
  throw new HttpTransportError(
    'OAUTH_DISCOVERY',
    origin,
    `${what} ${url.origin} of MCP server at ${origin} must use https (plain http only on a loopback host)`,
  );
}

/** Options for an oauth4webapi request to `url`. */
export function requestOptions(http: OAuthHttp, url: URL) {
  const timeout = AbortSignal.timeout(OAUTH_REQUEST_TIMEOUT_MS);
  return {
    [customFetch]: http.fetch,
    [allowInsecureRequests]: url.protocol === 'http:' && isLoopback(url),
    signal: http.signal === undefined ? timeout : AbortSignal.any([http.signal, timeout]),
  };
}

/** A plain GET of a metadata document, bounded and without redirects followed. */
export async function getJson(http: OAuthHttp, url: URL): Promise<Response> {
  const options = requestOptions(http, url);
  return http.fetch(url, {
    method: 'GET',
    headers: { accept: 'application/json' },
    redirect: 'manual',
    signal: options.signal,
  });
}

/** At most this much of an authorization server's `error_description`. */
const DESCRIPTION_CHARS = 200;

/**
 * Names the OAuth error code (e.g. `access_denied`) and the server's `error_description` when it
 * gave one ("the user is not in the allowed group" is the answer a person needs), else the
 * library's text. The description is the server's: one line, control characters removed, bounded.
 */
export function oauthFailureText(error: unknown): string {
  const code = (error as { error?: unknown }).error;
  const text = (error as Error).message;
  if (typeof code === 'string' && /^[\w.-]{1,64}$/.test(code)) {
    const raw = (error as { error_description?: unknown }).error_description;
    const description =
      typeof raw === 'string' ? raw.replace(/[\p{Cc}\p{Cf}\s]+/gu, ' ').trim() : '';
    if (description === '') return `${code}: ${text}`;
    return `${code}: ${description.length > DESCRIPTION_CHARS ? `${description.slice(0, DESCRIPTION_CHARS)}…` : description}`;
  }
  // oauth4webapi words an unexpected status as '"response" is not a conform … response
  // (unexpected HTTP status code)'; the status says it (a 503 is maintenance, not a bad reply).
  const response = (error as { cause?: unknown }).cause;
  if (response instanceof Response && !response.ok) {
    return response.status >= 500
      ? `HTTP ${response.status}, the server is unavailable or failing`
      : `HTTP ${response.status} without an OAuth error`;
  }
  return text;
}

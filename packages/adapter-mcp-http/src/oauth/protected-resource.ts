/** RFC 9728 Protected Resource Metadata discovery for one MCP server. @module */
import { shownUrl } from '@clat/kernel';
import { HttpTransportError } from '../errors.js';
import type { AuthChallenge } from './auth-challenge.js';
import { checkEndpoint, getJson, type OAuthHttp } from './oauth-http.js';

export interface ProtectedResource {
  /** The PRM `resource`, sent verbatim as the RFC 8707 `resource` parameter. */
  resource: string;
  /** The authorization server issuer this client uses (the first one listed). */
  issuer: string;
  scopesSupported: string[] | undefined;
  /** True when no PRM exists and the 2025-03-26 rule applies: the AS is the server origin. */
  legacy: boolean;
}

/** The candidate PRM URLs in the spec's order: the challenge's, path-aware, root. */
export function resourceMetadataUrls(serverUrl: URL, challenge: AuthChallenge | undefined): URL[] {
  const out: URL[] = [];
  const origin = serverUrl.origin;
  if (challenge?.resourceMetadata !== undefined) {
    out.push(checkEndpoint(challenge.resourceMetadata, 'resource_metadata', origin));
  }
  const path = serverUrl.pathname.replace(/\/+$/, '');
  if (path !== '') out.push(new URL(`/.well-known/oauth-protected-resource${path}`, origin));
  out.push(new URL('/.well-known/oauth-protected-resource', origin));
  return out;
}

/**
 * True when `resource` names this server: the same origin and a path that is the server's path
 * or a segment prefix of it (what the reference SDK accepts; RFC 9728 asks for identity).
 */
export function resourceMatches(resource: string, serverUrl: URL): boolean {
  let url: URL;
  try {
    url = new URL(resource);
  } catch {
    return false;
  }
  if (url.origin !== serverUrl.origin || url.hash !== '' || url.search !== '') return false;
  const want = url.pathname.replace(/\/+$/, '');
  const have = serverUrl.pathname.replace(/\/+$/, '');
  return want === '' || have === want || have.startsWith(`${want}/`);
}

function invalid(origin: string, text: string): HttpTransportError {
  return new HttpTransportError('OAUTH_DISCOVERY', origin, text);
}

/**
 * Finds and validates the server's PRM. 4xx and 502 fall through to the next candidate; with no
 * document at all the legacy rule applies (AS = the server origin).
 */
export async function discoverProtectedResource(
  serverUrl: URL,
  challenge: AuthChallenge | undefined,
  http: OAuthHttp,
): Promise<ProtectedResource> {
  const origin = serverUrl.origin;
  for (const url of resourceMetadataUrls(serverUrl, challenge)) {
    let response: Response;
    try {
      response = await getJson(http, url);
    } catch (error) {
      throw invalid(
        origin,
        `protected resource metadata ${shownUrl(url.href)} of MCP server at ${origin} could not be fetched: ${(error as Error).message}`,
      );
    }
    if ((response.status >= 400 && response.status < 500) || response.status === 502) {
      await response.body?.cancel().catch(() => {});
      continue;
    }
    if (response.status !== 200) {
      await response.body?.cancel().catch(() => {});
      throw invalid(
        origin,
        `protected resource metadata ${shownUrl(url.href)} of MCP server at ${origin} answered HTTP ${response.status}`,
      );
    }
    let doc: Record<string, unknown>;
    try {
      doc = (await response.json()) as Record<string, unknown>;
    } catch {
      throw invalid(
        origin,
        `protected resource metadata ${shownUrl(url.href)} of MCP server at ${origin} is not JSON`,
      );
    }
    const resource = doc.resource;
    if (typeof resource !== 'string' || !resourceMatches(resource, serverUrl)) {
      throw invalid(
        origin,
        `protected resource metadata of MCP server at ${origin} names resource ${JSON.stringify(String(resource).slice(0, 200))}, not this server; refusing to authorize`,
      );
    }
    const servers = doc.authorization_servers;
    if (!Array.isArray(servers) || servers.length === 0 || typeof servers[0] !== 'string') {
      throw invalid(
        origin,
        `protected resource metadata of MCP server at ${origin} lists no authorization_servers`,
      );
    }
    checkEndpoint(servers[0], 'authorization server', origin);
    const scopes = Array.isArray(doc.scopes_supported)
      ? doc.scopes_supported.filter((s): s is string => typeof s === 'string')
      : undefined;
    return { resource, issuer: servers[0], scopesSupported: scopes, legacy: false };
  }
  return {
    resource: legacyResource(serverUrl),
    issuer: origin,
    scopesSupported: undefined,
    legacy: true,
  };
}

/** The canonical resource URI of a server with no PRM: no fragment, no trailing slash. */
function legacyResource(serverUrl: URL): string {
  const path = serverUrl.pathname.replace(/\/+$/, '');
  return `${serverUrl.origin}${path}`;
}

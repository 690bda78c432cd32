/** Authorization server metadata discovery (RFC 8414, then OpenID Connect), in the spec's order. @module */

import { shownUrl } from '@clat/kernel';
import { type AuthorizationServer, processDiscoveryResponse } from 'oauth4webapi';
import { HttpTransportError } from '../errors.js';
import { checkEndpoint, getJson, type OAuthHttp } from './oauth-http.js';

/** The metadata URLs for `issuer`, in the order of the 2025-11-25 revision. */
export function authorizationServerMetadataUrls(issuer: URL): URL[] {
  const path = issuer.pathname.replace(/\/+$/, '');
  const origin = issuer.origin;
  if (path === '') {
    return [
      new URL('/.well-known/oauth-authorization-server', origin),
      new URL('/.well-known/openid-configuration', origin),
    ];
  }
  return [
    new URL(`/.well-known/oauth-authorization-server${path}`, origin),
    new URL(`/.well-known/openid-configuration${path}`, origin),
    new URL(`${path}/.well-known/openid-configuration`, origin),
  ];
}

/** What is missing when a server publishes no OAuth metadata, for the messages that say so. */
export const NO_METADATA =
  'publishes no OAuth metadata (no resource_metadata challenge in its 401, no /.well-known/oauth-protected-resource, no authorization server metadata)';

/** Metadata CLAT assumed (the 2025-03-26 default endpoints), not metadata a server published. */
const assumed = new WeakSet<AuthorizationServer>();

/**
 * True for the default endpoints assumed for a server that publishes no metadata: when they fail
 * too, the server most likely is no OAuth server at all.
 */
export function isAssumedMetadata(as: AuthorizationServer): boolean {
  return assumed.has(as);
}

export interface DiscoverAuthorizationServerOptions {
  /** The MCP server origin, for messages. */
  origin: string;
  /** 2025-03-26 servers without PRM: fall back to `/authorize`, `/token`, `/register`. */
  legacy: boolean;
}

/**
 * Fetches and validates the AS metadata of `issuer`: the document's `issuer` must equal it, and
 * PKCE S256 must be advertised. A legacy server with no metadata gets the default endpoints.
 */
export async function discoverAuthorizationServer(
  issuer: string,
  http: OAuthHttp,
  options: DiscoverAuthorizationServerOptions,
): Promise<AuthorizationServer> {
  const { origin } = options;
  const issuerUrl = checkEndpoint(issuer, 'authorization server', origin);
  for (const url of authorizationServerMetadataUrls(issuerUrl)) {
    let response: Response;
    try {
      response = await getJson(http, url);
    } catch (error) {
      throw new HttpTransportError(
        'OAUTH_DISCOVERY',
        origin,
        `authorization server metadata ${shownUrl(url.href)} could not be fetched: ${(error as Error).message}`,
      );
    }
    if (response.status >= 400 && response.status < 500) {
      await response.body?.cancel().catch(() => {});
      continue;
    }
    let as: AuthorizationServer;
    try {
      as = await processDiscoveryResponse(issuerUrl, response);
    } catch (error) {
      throw new HttpTransportError(
        'OAUTH_DISCOVERY',
        origin,
        `authorization server metadata ${shownUrl(url.href)} was refused (${(error as Error).message}); expected issuer ${shownUrl(issuer)}`,
        { cause: error },
      );
    }
    const methods = as.code_challenge_methods_supported;
    if (!Array.isArray(methods) || !methods.includes('S256')) {
      throw new HttpTransportError(
        'OAUTH_DISCOVERY',
        origin,
        `authorization server ${issuerUrl.origin} does not advertise PKCE S256 (code_challenge_methods_supported), so CLAT will not authorize with it`,
      );
    }
    for (const key of ['authorization_endpoint', 'token_endpoint', 'registration_endpoint']) {
      if (as[key] !== undefined) checkEndpoint(as[key], key, origin);
    }
    return as;
  }
  if (options.legacy) {
    const base = issuerUrl.origin;
    const defaults: AuthorizationServer = {
      issuer: base,
      authorization_endpoint: `${base}/authorize`,
      token_endpoint: `${base}/token`,
      registration_endpoint: `${base}/register`,
      code_challenge_methods_supported: ['S256'],
    };
    assumed.add(defaults);
    return defaults;
  }
  throw new HttpTransportError(
    'OAUTH_DISCOVERY',
    origin,
    `authorization server ${JSON.stringify(issuer)} of MCP server at ${origin} publishes no OAuth or OpenID metadata`,
  );
}

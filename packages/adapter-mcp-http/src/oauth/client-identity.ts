/**
 * Which client CLAT is at an authorization server, in the spec's order: pre-registered (mcp.json),
 * a Client ID Metadata Document, then Dynamic Client Registration.
 * @module
 */
import {
  type AuthorizationServer,
  type Client,
  type ClientAuth,
  ClientSecretBasic,
  ClientSecretPost,
  dynamicClientRegistrationRequest,
  None,
  processDynamicClientRegistrationResponse,
} from 'oauth4webapi';
import { HttpTransportError } from '../errors.js';
import { isAssumedMetadata, NO_METADATA } from './authorization-server.js';
import { type OAuthHttp, oauthFailureText, requestOptions } from './oauth-http.js';
import type { StoredClient, TokenEndpointAuthMethod } from './token-store.js';

/** The `oauth` object of an mcp.json HTTP entry. */
export interface OAuthClientConfig {
  clientId?: string | undefined;
  clientSecret?: string | undefined;
  /** An https URL whose document describes CLAT (CIMD); used when the AS supports it. */
  clientMetadataUrl?: string | undefined;
  /** Scopes to request when the server names none. */
  scopes?: string[] | undefined;
  grant?: 'authorization_code' | 'client_credentials' | undefined;
  /** The port of the redirect URI a client was registered with: `http://localhost:<port>/callback`. */
  callbackPort?: number | undefined;
}

/** Picks the token endpoint auth method of a client with a secret, per the AS metadata. */
export function secretMethod(as: AuthorizationServer, origin: string): TokenEndpointAuthMethod {
  // RFC 8414: an absent list means client_secret_basic.
  const supported = as.token_endpoint_auth_methods_supported ?? ['client_secret_basic'];
  if (supported.includes('client_secret_basic')) return 'client_secret_basic';
  if (supported.includes('client_secret_post')) return 'client_secret_post';
  throw new HttpTransportError(
    'OAUTH_CLIENT',
    origin,
    `authorization server ${as.issuer} accepts none of client_secret_basic, client_secret_post for the configured client secret`,
  );
}

export function clientAuthOf(client: StoredClient, secret: string | undefined): ClientAuth {
  if (client.method === 'none' || secret === undefined) return None();
  return client.method === 'client_secret_post'
    ? ClientSecretPost(secret)
    : ClientSecretBasic(secret);
}

export function oauthClientOf(client: StoredClient): Client {
  return { client_id: client.clientId, token_endpoint_auth_method: client.method };
}

export interface ResolveClientOptions {
  as: AuthorizationServer;
  config: OAuthClientConfig | undefined;
  /** A client already stored for this issuer (reused, never across issuers). */
  stored: StoredClient | undefined;
  redirectUri: string;
  clientName: string;
  /** Said instead of the mcp.json field when the AS offers no client registration. */
  clientHint?: string | undefined;
  origin: string;
  http: OAuthHttp;
}

/**
 * A registered client serves again while the AS still knows it as it was registered: the same
 * loopback redirect URI (many authorization servers match it exactly, port included, despite RFC
 * 8252 §7.3) and a secret that has not expired. A record from before CLAT kept the redirect URI
 * registers once more, and then keeps it.
 */
function reusable(
  stored: StoredClient | undefined,
  redirectUri: string,
): stored is StoredClient & { source: 'registration' } {
  if (stored?.source !== 'registration' || stored.redirectUri !== redirectUri) return false;
  return stored.secretExpiresAt === undefined || stored.secretExpiresAt > Date.now();
}

/** The client to authorize as, registering one (RFC 7591) only when nothing else applies. */
export async function resolveClient(options: ResolveClientOptions): Promise<StoredClient> {
  const { as, config, origin } = options;
  if (config?.clientId !== undefined) {
    return {
      clientId: config.clientId,
      method: config.clientSecret === undefined ? 'none' : secretMethod(as, origin),
      source: 'config',
    };
  }
  if (
    config?.clientMetadataUrl !== undefined &&
    as.client_id_metadata_document_supported === true
  ) {
    return { clientId: config.clientMetadataUrl, method: 'none', source: 'metadata-document' };
  }
  if (reusable(options.stored, options.redirectUri)) return options.stored;
  if (typeof as.registration_endpoint !== 'string') {
    throw new HttpTransportError(
      'OAUTH_CLIENT',
      origin,
      `authorization server ${as.issuer} offers no client registration: ${options.clientHint ?? 'set "oauth": { "clientId": … } for this server in mcp.json'}`,
    );
  }
  const metadata: Partial<Client> = {
    client_name: options.clientName,
    redirect_uris: [options.redirectUri],
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    // No `scope`: resource scopes are often not registrable (oidc-provider refuses them), and
    // the authorization request names the scopes anyway. RFC 7591 defaults the auth method to
    // client_secret_basic; a CLI cannot keep a secret.
    token_endpoint_auth_method: 'none',
    application_type: 'native',
  };
  let registered: Client;
  try {
    const url = new URL(as.registration_endpoint);
    const response = await dynamicClientRegistrationRequest(
      as,
      metadata,
      requestOptions(options.http, url),
    );
    registered = await processDynamicClientRegistrationResponse(response);
  } catch (error) {
    if (isAssumedMetadata(as)) {
      // Nothing said this server does OAuth; its made-up /register failing makes that likely.
      throw new HttpTransportError(
        'OAUTH_NO_METADATA',
        origin,
        `MCP server at ${origin} ${NO_METADATA} and its default ${as.registration_endpoint} failed (${oauthFailureText(error)}), so it probably expects a static Authorization header instead of a login`,
        { cause: error },
      );
    }
    throw new HttpTransportError(
      'OAUTH_CLIENT',
      origin,
      `client registration at ${as.issuer} failed (${oauthFailureText(error)})`,
      { cause: error },
    );
  }
  const secret =
    typeof registered.client_secret === 'string' ? registered.client_secret : undefined;
  const method = registered.token_endpoint_auth_method;
  const out: StoredClient = {
    clientId: registered.client_id,
    method:
      method === 'client_secret_post' || method === 'client_secret_basic'
        ? method
        : secret === undefined
          ? 'none'
          : 'client_secret_basic',
    source: 'registration',
    redirectUri: options.redirectUri,
  };
  if (secret !== undefined) out.clientSecret = secret;
  // RFC 7591: 0 means the secret never expires.
  const expires = registered.client_secret_expires_at;
  if (typeof expires === 'number' && expires > 0) out.secretExpiresAt = expires * 1000;
  return out;
}

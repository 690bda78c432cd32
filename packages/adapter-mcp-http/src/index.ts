/**
 * @clat/adapter-mcp-http: the Streamable HTTP transport of CLAT's MCP client, and the OAuth
 * client that authorizes it against protected servers.
 * @module
 */
export { HttpTransportError, HttpTransportErrorCode, isHttpTransportError } from './errors.js';
export type { HttpAuth, HttpAuthChallenge } from './http-auth.js';
export type { HttpTransportOptions } from './http-options.js';
export { HttpTransport } from './http-transport.js';
export { HttpTransportFactory } from './http-transport-factory.js';
export {
  type HttpEntryAuth,
  type HttpServerEntry,
  type HttpTransportProvider,
  type HttpTransportProviderOptions,
  httpTransport,
} from './http-transport-provider.js';
export { type AuthChallenge, parseAuthChallenge } from './oauth/auth-challenge.js';
export type { BrowserLeg } from './oauth/authorization-code-flow.js';
export {
  authorizationServerMetadataUrls,
  discoverAuthorizationServer,
} from './oauth/authorization-server.js';
export type { OAuthClientConfig } from './oauth/client-identity.js';
export { FileTokenStore, oauthFileFor } from './oauth/file-token-store.js';
export {
  OAuthClient,
  type OAuthClientOptions,
  type OAuthLoginOptions,
  type OAuthLoginResult,
  type OAuthRevocation,
} from './oauth/oauth-client.js';
export {
  discoverProtectedResource,
  type ProtectedResource,
  resourceMatches,
  resourceMetadataUrls,
} from './oauth/protected-resource.js';
export { scopeUnion, selectScopes } from './oauth/scope-selection.js';
export { type StoredOAuthOptions, storedOAuth } from './oauth/stored-oauth.js';
export type {
  OAuthRecord,
  StoredClient,
  StoredTokens,
  TokenEndpointAuthMethod,
  TokenStore,
} from './oauth/token-store.js';
export { SseTransport, type SseTransportOptions } from './sse-transport.js';
export { SseTransportFactory } from './sse-transport-factory.js';

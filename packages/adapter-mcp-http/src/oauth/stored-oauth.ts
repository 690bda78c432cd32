/**
 * The OAuth side of a host's HTTP entries, for hosts that keep logins in a directory: which
 * entries get an OAuth client, and the client with its token store. `clat` and `clat-gateway`
 * use it with the same directory, so a login made once serves both.
 * @module
 */
import type { HttpServerEntry } from '../http-transport-provider.js';
import { FileTokenStore } from './file-token-store.js';
import { OAuthClient } from './oauth-client.js';

export interface StoredOAuthOptions {
  /** Where the records live (`<clat home>/oauth` for CLAT hosts); created 0700 on first login. */
  dir: string;
  /** The client name registered with authorization servers (dynamic registration). */
  clientName: string;
  /** What a person must do when an entry needs a login, as one sentence fragment. */
  loginHint(server: HttpServerEntry): string;
  /**
   * What a person may do when an entry's server answers 401 and publishes no OAuth metadata (it
   * most likely wants a static token), as one sentence fragment.
   */
  headerHint?(server: HttpServerEntry): string;
  /**
   * What a person must do when the authorization server offers no client registration (register
   * a client there by hand and configure it), as one sentence fragment.
   */
  clientHint?(server: HttpServerEntry): string;
}

/**
 * The `auth` option of `httpTransport()`: an OAuth client per entry, unless the entry's own
 * headers already authorize it (a static `Authorization` header without an `oauth` block wins:
 * the user chose it).
 */
export function storedOAuth(
  options: StoredOAuthOptions,
): (server: HttpServerEntry) => OAuthClient | undefined {
  const store = new FileTokenStore(options.dir);
  return (server) => {
    const headers = Object.keys(server.headers ?? {}).map((name) => name.toLowerCase());
    if (headers.includes('authorization') && server.oauth === undefined) return undefined;
    return new OAuthClient({
      serverUrl: server.url,
      store,
      config: server.oauth,
      clientName: options.clientName,
      loginHint: options.loginHint(server),
      headerHint: options.headerHint?.(server),
      clientHint: options.clientHint?.(server),
    });
  };
}

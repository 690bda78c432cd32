/** The port where OAuth state of one server lives between runs (a 0600 file in CLAT). @module */

export type TokenEndpointAuthMethod = 'none' | 'client_secret_basic' | 'client_secret_post';

/** A client identity, bound to the issuer that knows it. */
export interface StoredClient {
  clientId: string;
  /** Only for registered (DCR) confidential clients; configured secrets stay in the config. */
  clientSecret?: string;
  method: TokenEndpointAuthMethod;
  source: 'config' | 'metadata-document' | 'registration';
  /**
   * Registered clients: the loopback redirect URI they were registered with. Later logins listen
   * on its port again, so an authorization server that matches redirect URIs exactly accepts
   * them; when the port is taken, CLAT registers anew.
   */
  redirectUri?: string;
  /** Registered clients: when the AS said the secret expires (epoch ms); then CLAT registers anew. */
  secretExpiresAt?: number;
}

export interface StoredTokens {
  accessToken: string;
  refreshToken?: string;
  /** Epoch milliseconds. */
  expiresAt?: number;
  /** The scope the AS granted (space-separated), when it said. */
  scope?: string;
}

/** Everything CLAT keeps for one server URL. Credentials are never reused for another issuer. */
export interface OAuthRecord {
  version: 1;
  serverUrl: string;
  issuer?: string;
  resource?: string;
  client?: StoredClient;
  tokens?: StoredTokens;
  /** Scopes to ask for at the next authorization (the union after a step-up challenge). */
  scopes?: string[];
}

/** Reads and writes {@link OAuthRecord}s by server URL. Implementations keep them private (0600). */
export interface TokenStore {
  read(serverUrl: string): Promise<OAuthRecord | undefined>;
  write(record: OAuthRecord): Promise<void>;
  /** True when something was removed. */
  remove(serverUrl: string): Promise<boolean>;
  /**
   * Optional: runs `work` while no other process sharing the store runs work for the same
   * server (a refresh). Without it, a refresh token that rotates can be spent twice by two
   * processes, and the loser would drop the winner's fresh login.
   */
  exclusive?<T>(serverUrl: string, work: () => Promise<T>): Promise<T>;
}

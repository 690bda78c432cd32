/**
 * The OAuth client of one protected MCP server, plugged into the HTTP transport as its
 * {@link HttpAuth}: bearer tokens on every request, refresh before expiry and on `invalid_token`,
 * bounded step-up on `insufficient_scope`, `client_credentials` for machines, and the browser
 * login that `clat mcp login` runs.
 * @module
 */

import { errorMessage, shownUrl } from '@clat/kernel';
import type { AuthorizationServer } from 'oauth4webapi';
import { HttpTransportError, isHttpTransportError } from '../errors.js';
import type { HttpAuth, HttpAuthChallenge } from '../http-auth.js';
import { networkReason } from '../http-failures.js';
import { validateHttpOptions } from '../http-options.js';
import { type AuthChallenge, parseAuthChallenge } from './auth-challenge.js';
import { type BrowserLeg, runAuthorizationCode } from './authorization-code-flow.js';
import {
  discoverAuthorizationServer,
  isAssumedMetadata,
  NO_METADATA,
} from './authorization-server.js';
import { type OAuthClientConfig, secretMethod } from './client-identity.js';
import { OAUTH_REQUEST_TIMEOUT_MS, type OAuthHttp } from './oauth-http.js';
import { discoverProtectedResource, type ProtectedResource } from './protected-resource.js';
import { scopeUnion, selectScopes, splitScope, withOfflineAccess } from './scope-selection.js';
import {
  clientCredentialsTokens,
  clientRefused,
  type GrantContext,
  grantRefused,
  refreshTokens,
  refusalReason,
  revokeToken,
} from './token-grants.js';
import type { OAuthRecord, StoredClient, StoredTokens, TokenStore } from './token-store.js';

/** What a server that never sent a 401 did not publish (NO_METADATA names the 401 too). */
const UNPUBLISHED =
  'publishes no OAuth metadata (no /.well-known/oauth-protected-resource, no authorization server metadata)';

/** Refresh this long before the recorded expiry, so a request never races it. */
const REFRESH_MARGIN_MS = 60_000;
/** Step-up authorizations one client runs before it gives up (conformance fails above 3). */
const DEFAULT_MAX_STEP_UPS = 2;

export interface OAuthClientOptions {
  /** The MCP endpoint; tokens are kept and sent for this URL only. */
  serverUrl: string;
  store: TokenStore;
  config?: OAuthClientConfig | undefined;
  /** `client_name` at registration. */
  clientName?: string | undefined;
  /** What to tell a person when a login is needed, e.g. "run `clat mcp login notes`". */
  loginHint?: string | undefined;
  /**
   * What to tell a person when a 401 comes from a server that publishes no OAuth metadata at all
   * (most likely it wants a static token, and a login would fail), e.g. the command that adds an
   * `Authorization` header. Without it the message only says so.
   */
  headerHint?: string | undefined;
  /**
   * What to tell a person when the authorization server offers no client registration (a client
   * must be registered there by hand), e.g. the command that adds its client id.
   */
  clientHint?: string | undefined;
  /** A browser leg for interactive sessions; headless runs leave it out and never open one. */
  browser?: (() => BrowserLeg | undefined) | undefined;
  maxStepUps?: number | undefined;
  fetch?: typeof fetch | undefined;
}

/** What a login the person started asks for. */
export interface OAuthLoginOptions {
  /**
   * Exactly the scopes to request (`offline_access` is still added when the authorization
   * server can refresh), instead of the challenged, advertised, configured and remembered ones;
   * later step-ups add to them.
   */
  scopes?: readonly string[] | undefined;
}

export interface OAuthLoginResult {
  issuer: string;
  /** Granted scope, when the AS said. */
  scope: string | undefined;
  refreshable: boolean;
}

/** What {@link OAuthClient.revoke} did at the authorization server. */
export type OAuthRevocation =
  | { state: 'revoked'; issuer: string }
  /** No tokens (or no client or issuer to revoke them with) are stored. */
  | { state: 'nothing-stored' }
  /** The authorization server's metadata names no `revocation_endpoint`. */
  | { state: 'unsupported' }
  /** Discovery or a revocation request failed; `reason` says why (the AS's text is untrusted). */
  | { state: 'failed'; reason: string };

interface Context {
  prm: ProtectedResource;
  as: AuthorizationServer;
}

/** The server or its issuer asked for a new login (see `#needLogin`, `#grant`). */
function isLoginRequired(error: unknown): boolean {
  return isHttpTransportError(error) && error.code === 'OAUTH_LOGIN_REQUIRED';
}

export class OAuthClient implements HttpAuth {
  readonly origin: string;
  readonly #url: URL;
  readonly #options: OAuthClientOptions;
  readonly #http: OAuthHttp;
  #record: OAuthRecord | undefined;
  #loaded = false;
  #context: Context | undefined;
  #challenge: AuthChallenge | undefined;
  #pending: Promise<unknown> | undefined;
  #stepUps = 0;
  #loginRequired = false;
  /** Why the stored login stopped working in this process (a refused refresh), for `needs login`. */
  #lost: string | undefined;
  /** The HTTP status of the last unauthenticated probe (`#probe`). */
  #probeStatus: number | undefined;

  constructor(options: OAuthClientOptions) {
    // The transport's own checks (http(s), no credentials in the URL): a login must not carry a
    // URL the connection would refuse, nor quote it in an error.
    const { url, origin } = validateHttpOptions({ url: options.serverUrl });
    this.#url = url;
    this.origin = origin;
    this.#options = options;
    this.#http = { fetch: options.fetch ?? globalThis.fetch };
  }

  /** True once the server refused us and only a (browser) login can help. */
  get loginRequired(): boolean {
    return this.#loginRequired;
  }

  /** Why the stored login stopped working in this process (its refresh was refused), if it did. */
  get loginLost(): string | undefined {
    return this.#lost;
  }

  get #clientCredentials(): boolean {
    return this.#options.config?.grant === 'client_credentials';
  }

  async header(): Promise<string | undefined> {
    const record = await this.#load();
    let tokens = record?.tokens;
    if (tokens === undefined && this.#clientCredentials)
      tokens = await this.#once(() => this.#machineToken());
    if (tokens === undefined) return undefined;
    if (tokens.expiresAt !== undefined && tokens.expiresAt - REFRESH_MARGIN_MS < Date.now()) {
      tokens = await this.#once(() => this.#renew(tokens as StoredTokens));
      if (tokens === undefined) return undefined;
    }
    return `Bearer ${tokens.accessToken}`;
  }

  async onUnauthorized(seen: HttpAuthChallenge, signal?: AbortSignal): Promise<'retry' | 'fail'> {
    const challenge = await parseAuthChallenge(seen.wwwAuthenticate);
    if (challenge !== undefined) this.#challenge = challenge;
    if (seen.status === 403) {
      if (challenge?.error !== 'insufficient_scope') return 'fail';
      return this.#stepUp(challenge);
    }
    // Another process (`clat mcp login`) may have stored fresh tokens meanwhile.
    const before = this.#record?.tokens?.accessToken;
    this.#loaded = false;
    const record = await this.#load();
    if (record?.tokens !== undefined && record.tokens.accessToken !== before) return 'retry';
    if (record?.tokens !== undefined) {
      const renewed = await this.#once(() => this.#renew(record.tokens as StoredTokens));
      if (renewed !== undefined) return 'retry';
    } else if (this.#clientCredentials) {
      await this.#once(() => this.#machineToken());
      return 'retry';
    }
    if (await this.#publishesNoMetadata(challenge, signal)) {
      // Not `needs login`: the login it would point to fails the same way (client-identity.ts).
      // No status on the error: the connection failed for want of a token, whatever the era.
      const hint = this.#options.headerHint === undefined ? '' : `; ${this.#options.headerHint}`;
      throw new HttpTransportError(
        'OAUTH_NO_METADATA',
        this.origin,
        `MCP server at ${this.origin} answered HTTP 401 and ${NO_METADATA}, so it probably expects a static Authorization header instead of a login${hint}`,
      );
    }
    return this.#needLogin(
      this.#lost === undefined ? 'needs login' : `needs login (${this.#lost})`,
    );
  }

  /**
   * True when discovery (GETs of the metadata documents only, bounded by the request's signal)
   * finds nothing this server published. A discovery that fails otherwise leaves the answer to
   * the login, which names why.
   */
  async #publishesNoMetadata(
    challenge: AuthChallenge | undefined,
    signal: AbortSignal | undefined,
  ): Promise<boolean> {
    try {
      const { as } = await this.#discover(challenge, signal);
      return isAssumedMetadata(as);
    } catch {
      return false;
    }
  }

  /**
   * Runs the browser flow (or the client_credentials grant) and stores the result. Discovery
   * uses the last challenge seen, else an unauthenticated probe of the server. A login the user
   * asked for starts the step-up count afresh.
   */
  async login(browser: BrowserLeg, options: OAuthLoginOptions = {}): Promise<OAuthLoginResult> {
    const result = await this.#authorize(browser, options.scopes);
    this.#stepUps = 0;
    return result;
  }

  /** The login itself; a step-up runs it without resetting the count that bounds step-ups. */
  async #authorize(
    browser: BrowserLeg,
    requested?: readonly string[] | undefined,
  ): Promise<OAuthLoginResult> {
    const record = await this.#load();
    const probed = this.#challenge === undefined;
    const challenge = this.#challenge ?? (await this.#probe(browser.signal));
    const { prm, as } = await this.#discover(challenge, browser.signal);
    const sameIssuer = record?.issuer === as.issuer;
    if (this.#clientCredentials) {
      const tokens = await this.#machineToken();
      return { issuer: as.issuer, scope: tokens.scope, refreshable: false };
    }
    const scopes = withOfflineAccess(
      requested !== undefined && requested.length > 0
        ? scopeUnion([...requested])
        : selectScopes({
            challenged: challenge?.scope,
            scopesSupported: prm.scopesSupported,
            configured: this.#options.config?.scopes,
            remembered: sameIssuer ? record?.scopes : undefined,
          }),
      as,
    );
    const http = { ...this.#http, signal: browser.signal };
    const result = await runAuthorizationCode({
      as,
      config: this.#options.config,
      stored: sameIssuer ? record?.client : undefined,
      resource: prm.resource,
      scopes,
      clientName: this.#options.clientName ?? 'CLAT',
      clientHint: this.#options.clientHint,
      origin: this.origin,
      http,
      browser,
    }).catch(async (error: unknown) => {
      // The assumed default endpoints failed: say why a login made no sense, when the probe knows.
      if (probed && isHttpTransportError(error) && error.code === 'OAUTH_NO_METADATA')
        this.#refuseNeedlessLogin();
      // The code exchange refused the registered client this login reused: forgotten, so the
      // next login registers anew.
      // Only the registered client this login reused: a client of mcp.json ("oauth.clientId")
      // or a metadata document comes first, and another issuer's client was not offered.
      const reused =
        sameIssuer &&
        record?.client?.source === 'registration' &&
        this.#options.config?.clientId === undefined &&
        this.#options.config?.clientMetadataUrl === undefined;
      if (clientRefused(error) && reused && record?.client !== undefined) {
        const { client: _forgotten, ...rest } = record;
        await this.#save(rest);
        throw new HttpTransportError(
          'OAUTH_CLIENT',
          this.origin,
          `authorization server ${as.issuer} no longer accepts the client CLAT registered there (${errorMessage(error)}); it is forgotten, and the next login registers a new one`,
          { cause: error },
        );
      }
      throw error;
    });
    await this.#save({
      version: 1,
      serverUrl: this.#options.serverUrl,
      issuer: as.issuer,
      resource: prm.resource,
      client: result.client,
      tokens: result.tokens,
      scopes: scopes.filter((s) => s !== 'offline_access'),
    });
    this.#loginRequired = false;
    this.#lost = undefined;
    return {
      issuer: as.issuer,
      scope: result.tokens.scope,
      refreshable: result.tokens.refreshToken !== undefined,
    };
  }

  /**
   * Asks the authorization server to revoke the stored tokens (RFC 7009: the refresh token,
   * which ends its grant, then the access token), so a copy left elsewhere stops working too.
   * Nothing is deleted here; {@link logout} does that. The AS is found from the stored issuer,
   * so revoking needs no answer from the MCP server.
   */
  async revoke(signal?: AbortSignal): Promise<OAuthRevocation> {
    this.#loaded = false;
    const record = await this.#load();
    const tokens = record?.tokens;
    if (tokens === undefined || record?.client === undefined || record.issuer === undefined)
      return { state: 'nothing-stored' };
    const http = signal === undefined ? this.#http : { ...this.#http, signal };
    try {
      const as = await discoverAuthorizationServer(record.issuer, http, {
        origin: this.origin,
        legacy: false,
      });
      if (typeof as.revocation_endpoint !== 'string') return { state: 'unsupported' };
      const ctx = {
        as,
        client: record.client,
        secret: record.client.clientSecret ?? this.#options.config?.clientSecret,
        origin: this.origin,
        http,
      };
      if (tokens.refreshToken !== undefined)
        await revokeToken(ctx, tokens.refreshToken, 'refresh_token');
      await revokeToken(ctx, tokens.accessToken, 'access_token');
      return { state: 'revoked', issuer: as.issuer };
    } catch (error) {
      return { state: 'failed', reason: errorMessage(error) };
    }
  }

  /** Forgets this server's tokens and registered client. True when something was stored. */
  async logout(): Promise<boolean> {
    this.#record = undefined;
    this.#loaded = true;
    return this.#options.store.remove(this.#options.serverUrl);
  }

  /** Whether tokens are stored for this server (they may still be expired or revoked). */
  async hasTokens(): Promise<boolean> {
    return (await this.#load())?.tokens !== undefined;
  }

  async #stepUp(challenge: AuthChallenge): Promise<'retry' | 'fail'> {
    const record = await this.#load();
    const scopes = scopeUnion(record?.scopes ?? [], splitScope(challenge.scope));
    if (record !== undefined) await this.#save({ ...record, scopes });
    else this.#record = { version: 1, serverUrl: this.#options.serverUrl, scopes };
    if (this.#stepUps >= (this.#options.maxStepUps ?? DEFAULT_MAX_STEP_UPS)) return 'fail';
    this.#stepUps++;
    if (this.#clientCredentials) {
      await this.#once(() => this.#machineToken());
      return 'retry';
    }
    const browser = this.#options.browser?.();
    if (browser !== undefined) {
      await this.#authorize(browser);
      return 'retry';
    }
    return this.#needLogin(
      `needs more scope (${splitScope(challenge.scope).join(' ') || 'unspecified'})`,
    );
  }

  #needLogin(what: string): never {
    this.#loginRequired = true;
    const hint = this.#options.loginHint === undefined ? '' : `: ${this.#options.loginHint}`;
    throw new HttpTransportError(
      'OAUTH_LOGIN_REQUIRED',
      this.origin,
      `MCP server at ${this.origin} ${what}${hint}`,
      { status: 401 },
    );
  }

  /**
   * Refreshes, or drops the tokens (back to `needs login`) when the authorization server refused
   * the refresh. Any other failure (network, timeout, 5xx, discovery) keeps them and fails this
   * request with the reason: one flaky request must not send the user back to the browser.
   */
  async #renew(tokens: StoredTokens): Promise<StoredTokens | undefined> {
    // A parallel request already renewed while this one waited.
    const held = this.#record;
    if (held?.tokens !== undefined && held.tokens.accessToken !== tokens.accessToken)
      return held.tokens;
    if (this.#clientCredentials) return this.#machineToken();
    const { store, serverUrl } = this.#options;
    // Other processes (a second clat, the gateway) share the store: one refreshes at a time, so
    // a rotating refresh token is spent once, and what one saved is not dropped by another.
    const work = () => this.#renewShared(tokens);
    return store.exclusive === undefined ? work() : store.exclusive(serverUrl, work);
  }

  async #renewShared(tokens: StoredTokens): Promise<StoredTokens | undefined> {
    // The file, not memory: a logout elsewhere must not be undone by this refresh.
    this.#record = await this.#options.store.read(this.#options.serverUrl);
    this.#loaded = true;
    const record = this.#record;
    // Another process refreshed (or logged in again) meanwhile: its tokens are the live ones.
    if (record?.tokens !== undefined && record.tokens.accessToken !== tokens.accessToken)
      return record.tokens;
    const refreshToken = tokens.refreshToken;
    if (record === undefined || refreshToken === undefined || record.client === undefined) {
      await this.#dropTokens();
      return undefined;
    }
    try {
      const ctx = await this.#grant(record.client);
      const renewed = await refreshTokens(ctx, { ...tokens, refreshToken });
      await this.#save({ ...record, tokens: renewed });
      return renewed;
    } catch (error) {
      // A changed issuer (`#grant`) binds the old credentials nowhere: a login it is, too.
      if (grantRefused(error) || isLoginRequired(error)) {
        // A registered client the server no longer knows is dropped with the tokens, so the
        // login this sends the person to registers anew instead of reusing it.
        await this.#dropTokens(clientRefused(error) && record.client.source === 'registration');
        this.#lost = `its stored login was refused at the refresh: ${refusalReason(error)}`;
        return undefined;
      }
      throw new HttpTransportError(
        'OAUTH_TOKEN',
        this.origin,
        `the access token for MCP server at ${this.origin} could not be refreshed: ${errorMessage(error)}; the login is kept, and the next request tries again`,
        { cause: error },
      );
    }
  }

  async #machineToken(): Promise<StoredTokens> {
    const config = this.#options.config;
    if (config?.clientId === undefined) {
      throw new HttpTransportError(
        'OAUTH_CLIENT',
        this.origin,
        `the client_credentials grant for MCP server at ${this.origin} needs "oauth.clientId" (and usually "oauth.clientSecret") in mcp.json`,
      );
    }
    const { prm, as } = await this.#discover(this.#challenge ?? (await this.#probe()));
    const client: StoredClient = {
      clientId: config.clientId,
      method: config.clientSecret === undefined ? 'none' : secretMethod(as, this.origin),
      source: 'config',
    };
    const scopes = selectScopes({
      challenged: this.#challenge?.scope,
      scopesSupported: prm.scopesSupported,
      configured: config.scopes,
      remembered: this.#record?.scopes,
    });
    const tokens = await clientCredentialsTokens(
      {
        as,
        client,
        secret: config.clientSecret,
        resource: prm.resource,
        origin: this.origin,
        http: this.#http,
      },
      scopes,
    );
    // Machine tokens live in memory only: the configured secret can always mint another.
    this.#record = {
      version: 1,
      serverUrl: this.#options.serverUrl,
      issuer: as.issuer,
      resource: prm.resource,
      tokens,
      scopes,
    };
    this.#loaded = true;
    return tokens;
  }

  async #grant(client: StoredClient): Promise<GrantContext> {
    const record = this.#record;
    const { prm, as } = await this.#discover(this.#challenge);
    if (record?.issuer !== undefined && record.issuer !== as.issuer) {
      // Credentials are bound to their issuer (2026-07-28): never offer them to another AS.
      throw new HttpTransportError(
        'OAUTH_LOGIN_REQUIRED',
        this.origin,
        `MCP server at ${this.origin} now names authorization server ${as.issuer}`,
      );
    }
    return {
      as,
      client,
      secret: client.clientSecret ?? this.#options.config?.clientSecret,
      resource: record?.resource ?? prm.resource,
      origin: this.origin,
      http: this.#http,
    };
  }

  async #discover(challenge: AuthChallenge | undefined, signal?: AbortSignal): Promise<Context> {
    if (this.#context !== undefined && challenge?.resourceMetadata === undefined)
      return this.#context;
    const http = signal === undefined ? this.#http : { ...this.#http, signal };
    const prm = await discoverProtectedResource(this.#url, challenge, http);
    const as = await discoverAuthorizationServer(prm.issuer, http, {
      origin: this.origin,
      legacy: prm.legacy,
    });
    this.#context = { prm, as };
    return this.#context;
  }

  /**
   * After a login at the default endpoints of a server that published nothing failed: when the
   * unauthenticated probe was not refused (no 401 or 403), the server needs no login, or (404)
   * the URL names no MCP endpoint. Either way "expects a static Authorization header" would be
   * wrong. Returns (the caller rethrows) when the probe was refused or did not run.
   */
  #refuseNeedlessLogin(): void {
    const status = this.#probeStatus;
    if (status === undefined || status === 401 || status === 403) return;
    if (status === 404) {
      throw new HttpTransportError(
        'OAUTH_DISCOVERY',
        this.origin,
        `MCP server at ${this.origin} answered HTTP 404 at ${shownUrl(this.#url.href)} and ${UNPUBLISHED}; check the server's URL`,
      );
    }
    if ((status >= 200 && status < 300) || status === 400 || status === 405 || status === 406) {
      throw new HttpTransportError(
        'OAUTH_NOT_REQUIRED',
        this.origin,
        `MCP server at ${this.origin} answered a request without credentials (HTTP ${status}) and ${UNPUBLISHED}`,
      );
    }
  }

  /**
   * An unauthenticated POST whose 401 names the resource metadata and scope. A server that has no
   * POST at its URL (400/404/405) may be an HTTP+SSE one, whose stream GET carries the challenge.
   */
  async #probe(signal?: AbortSignal): Promise<AuthChallenge | undefined> {
    const timeout = AbortSignal.timeout(OAUTH_REQUEST_TIMEOUT_MS);
    const bound = signal === undefined ? timeout : AbortSignal.any([signal, timeout]);
    try {
      let response = await this.#http.fetch(this.#url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 'clat-auth-probe', method: 'ping' }),
        redirect: 'manual',
        signal: bound,
      });
      await response.body?.cancel().catch(() => {});
      if (response.status === 400 || response.status === 404 || response.status === 405) {
        response = await this.#http.fetch(this.#url, {
          method: 'GET',
          headers: { accept: 'text/event-stream' },
          redirect: 'manual',
          signal: bound,
        });
        // An open stream is not read: only the status and the challenge matter.
        await response.body?.cancel().catch(() => {});
      }
      this.#probeStatus = response.status;
      if (response.status !== 401) return undefined;
      return await parseAuthChallenge(response.headers.get('www-authenticate'));
    } catch (error) {
      throw new HttpTransportError(
        'HTTP_NETWORK',
        this.origin,
        `MCP server at ${this.origin} could not be reached to start the login: ${networkReason(error)}`,
        { cause: error },
      );
    }
  }

  /** Serialises token work, so parallel requests share one refresh. */
  async #once<T>(work: () => Promise<T>): Promise<T> {
    while (this.#pending !== undefined) await this.#pending.catch(() => {});
    const run = work();
    this.#pending = run;
    try {
      return await run;
    } finally {
      this.#pending = undefined;
    }
  }

  async #load(): Promise<OAuthRecord | undefined> {
    if (!this.#loaded) {
      const read = await this.#options.store.read(this.#options.serverUrl);
      // A machine token held in memory survives a re-read of an empty store.
      if (read !== undefined || !this.#clientCredentials) this.#record = read;
      this.#loaded = true;
    }
    return this.#record;
  }

  async #save(record: OAuthRecord): Promise<void> {
    this.#record = record;
    this.#loaded = true;
    if (this.#clientCredentials) return;
    await this.#options.store.write(record);
  }

  async #dropTokens(withClient = false): Promise<void> {
    const record = this.#record;
    if (record === undefined) return;
    const { tokens: _dropped, client, ...rest } = record;
    await this.#save(withClient || client === undefined ? rest : { ...rest, client });
  }
}

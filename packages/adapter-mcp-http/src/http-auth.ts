/** The hook through which the HTTP transport gets credentials and reports 401/403. @module */

/** What the transport saw: the status and the raw `WWW-Authenticate` header. */
export interface HttpAuthChallenge {
  status: 401 | 403;
  wwwAuthenticate: string | null;
}

/**
 * Supplies the `Authorization` header of every request and decides what a 401 (or a 403 with
 * `insufficient_scope`) means. `onUnauthorized` answers `'retry'` once it obtained new
 * credentials, `'fail'` to let the status error stand, or throws a typed error of its own
 * (e.g. `OAUTH_LOGIN_REQUIRED`). The transport bounds the retries of one message.
 */
export interface HttpAuth {
  header(signal?: AbortSignal): Promise<string | undefined>;
  onUnauthorized(challenge: HttpAuthChallenge, signal?: AbortSignal): Promise<'retry' | 'fail'>;
}

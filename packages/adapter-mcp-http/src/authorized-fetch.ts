/**
 * One fetch with the auth hook's `Authorization`, and the bounded retries after a 401 (or a 403
 * naming `insufficient_scope`) that the hook answers with new credentials. Shared by both HTTP
 * transports, so Streamable HTTP and HTTP+SSE treat a login the same way.
 * @module
 */
import type { Redactor } from '@clat/kernel';
import type { HttpAuth } from './http-auth.js';
import { HEADER } from './http-headers.js';

/** Requests one message may send after 401/403 answers (refresh, then one step-up). */
const AUTH_RETRIES = 2;

/** What an authorized fetch needs from its transport. */
export interface AuthorizedFetch {
  readonly fetch: typeof fetch;
  readonly auth: HttpAuth | undefined;
  /** Learns every `Authorization` value, so no error or diagnostic can carry it. */
  readonly redactor: Redactor;
}

/** Sets (or removes) `Authorization` in `headers` from the auth hook; no hook, no change. */
export async function authorize(
  via: AuthorizedFetch,
  headers: Record<string, string>,
  signal: AbortSignal,
): Promise<void> {
  if (via.auth === undefined) return;
  const value = await via.auth.header(signal);
  if (value === undefined) delete headers[HEADER.authorization];
  else {
    headers[HEADER.authorization] = value;
    via.redactor.add(value);
  }
}

/**
 * A POST of `body` (or a GET without one) to `url` that never follows redirects. A 401, or a 403
 * naming `insufficient_scope`, goes to the auth hook, which may obtain new credentials for a
 * bounded number of retries; its `'fail'` returns the status as an empty response.
 */
export async function fetchAuthorized(
  via: AuthorizedFetch,
  url: URL,
  headers: Record<string, string>,
  body: string | undefined,
  signal: AbortSignal,
): Promise<Response> {
  for (let attempt = 0; ; attempt++) {
    await authorize(via, headers, signal);
    const init: RequestInit = { method: 'GET', headers, signal, redirect: 'manual' };
    if (body !== undefined) {
      init.method = 'POST';
      init.body = body;
    }
    const response = await via.fetch(url, init);
    const status = response.status;
    if (via.auth === undefined || (status !== 401 && status !== 403) || attempt >= AUTH_RETRIES)
      return response;
    const wwwAuthenticate = response.headers.get('www-authenticate');
    if (status === 403 && !/insufficient_scope/i.test(wwwAuthenticate ?? '')) return response;
    await response.body?.cancel().catch(() => {});
    const verdict = await via.auth.onUnauthorized({ status, wwwAuthenticate }, signal);
    if (verdict !== 'retry') {
      return new Response(null, { status, headers: response.headers });
    }
  }
}

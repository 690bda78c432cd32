/**
 * Typed errors of the Streamable HTTP transport. Messages name the server by URL origin only:
 * never its path or query (tokens hide there), never a header.
 * @module
 */

import { ClatError, clatErrorGuard } from '@clat/kernel';

export const HttpTransportErrorCode = {
  /** The URL or a caller-provided header is unusable. */
  HTTP_CONFIG_INVALID: 'HTTP_CONFIG_INVALID',
  /** The server could not be reached, or the connection broke (refused, reset, DNS). */
  HTTP_NETWORK: 'HTTP_NETWORK',
  /** A non-2xx status without a JSON-RPC body the client core could use. */
  HTTP_STATUS: 'HTTP_STATUS',
  /**
   * A message that carried a session id got 404, or a 400 naming the session: the server forgot
   * the session. The transport drops it and stays open for a new `initialize`.
   */
  HTTP_SESSION_EXPIRED: 'HTTP_SESSION_EXPIRED',
  /** The response was neither application/json nor text/event-stream. */
  HTTP_CONTENT_TYPE: 'HTTP_CONTENT_TYPE',
  /** A body or one SSE event crossed the message cap; the fetch was aborted. */
  HTTP_BODY_TOO_LARGE: 'HTTP_BODY_TOO_LARGE',
  /** The body was not JSON-RPC (bad JSON, wrong shape, or no body where one was due). */
  HTTP_INVALID_BODY: 'HTTP_INVALID_BODY',
  /** The SSE stream ended before it carried the response to its request. */
  HTTP_STREAM_ENDED: 'HTTP_STREAM_ENDED',
  /** The request was cancelled locally; its POST was aborted. */
  HTTP_CANCELLED: 'HTTP_CANCELLED',
  /** The transport is closed. */
  HTTP_CLOSED: 'HTTP_CLOSED',
  /** A reply to a server request was dropped: the connection's reply POST slots and queue were full. */
  HTTP_REPLY_DROPPED: 'HTTP_REPLY_DROPPED',
  /** The server wants an OAuth login that has not happened, expired or was revoked. */
  OAUTH_LOGIN_REQUIRED: 'OAUTH_LOGIN_REQUIRED',
  /** Protected resource or authorization server metadata is missing, invalid or foreign. */
  OAUTH_DISCOVERY: 'OAUTH_DISCOVERY',
  /**
   * The server publishes no OAuth metadata at all (no challenge naming it, no protected resource
   * or authorization server document) and its default endpoints fail: not an OAuth server.
   */
  OAUTH_NO_METADATA: 'OAUTH_NO_METADATA',
  /**
   * A login was asked for a server that answered without credentials and publishes no OAuth
   * metadata: it needs no login (nothing was stored).
   */
  OAUTH_NOT_REQUIRED: 'OAUTH_NOT_REQUIRED',
  /** No usable client identity (pre-registered, metadata document or registration). */
  OAUTH_CLIENT: 'OAUTH_CLIENT',
  /** The browser leg failed: bad state or issuer, an error redirect, a timeout or Ctrl-C. */
  OAUTH_AUTHORIZATION: 'OAUTH_AUTHORIZATION',
  /** The token endpoint refused a code, refresh token or client credentials. */
  OAUTH_TOKEN: 'OAUTH_TOKEN',
} as const;

export type HttpTransportErrorCode =
  (typeof HttpTransportErrorCode)[keyof typeof HttpTransportErrorCode];

export interface HttpTransportErrorOptions {
  /** HTTP status, when a response arrived. */
  status?: number | undefined;
  cause?: unknown;
}

/** A failure of one HTTP exchange; `origin` is the only part of the server URL it carries. */
export class HttpTransportError extends ClatError<HttpTransportErrorCode> {
  readonly origin: string;
  readonly status: number | undefined;
  /** The transport port's mark of a forgotten session (`isSessionExpired` in @clat/adapter-mcp). */
  readonly sessionExpired: boolean;

  constructor(
    code: HttpTransportErrorCode,
    origin: string,
    message: string,
    options: HttpTransportErrorOptions = {},
  ) {
    super(code, message, { cause: options.cause });
    this.name = 'HttpTransportError';
    this.origin = origin;
    this.status = options.status;
    this.sessionExpired = code === 'HTTP_SESSION_EXPIRED';
  }
}

/** True for a HttpTransportError from any bundled copy of this package. */
export const isHttpTransportError = clatErrorGuard<HttpTransportError>('HttpTransportError');

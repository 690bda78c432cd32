/**
 * Streamable HTTP transport: one POST per JSON-RPC message, JSON or SSE responses, legacy sessions.
 * It moves bytes only: the protocol headers of each message come from the client core, and no
 * result is read or rewritten here.
 * @module
 */

import {
  type GetStreamState,
  isNotification,
  isRequest,
  isResponse,
  type JsonRpcMessage,
  type JsonRpcRequest,
  MCP_LIMITS,
  type Transport,
  type TransportDiagnostics,
  type TransportSendOptions,
} from '@clat/adapter-mcp';
import { delay, LIMITS, Redactor, withDeadline } from '@clat/kernel';
import { type AuthorizedFetch, authorize, fetchAuthorized } from './authorized-fetch.js';
import { errorBody } from './body-reader.js';
import { type HttpTransportError, isHttpTransportError } from './errors.js';
import { GetStream } from './get-stream.js';
import {
  credentialsOf,
  describe,
  HttpFailures,
  isRedirect,
  networkReason,
} from './http-failures.js';
import { ACCEPT_BOTH, configuredHeaders, HEADER, mediaType } from './http-headers.js';
import { type HttpTransportOptions, validateHttpOptions } from './http-options.js';
import { ReplyGate } from './reply-gate.js';
import {
  answerFromJson,
  type BodyReader,
  deliverEventData,
  readEventStream,
  readJsonBody,
} from './response-body.js';
import { namesSession } from './session-expiry.js';

// Same cap as one stdio frame: the limits table fixes one message size for every transport.
const DEFAULT_MESSAGE_BYTES = MCP_LIMITS.stdioFrameBytes;

/**
 * A Streamable HTTP connection to one MCP server. `send` resolves once the server accepted the
 * message: for a request, once its response was delivered through `onmessage` (JSON or SSE); for
 * a notification or response, once the server answered 2xx (usually 202). It rejects with an
 * {@link HttpTransportError} naming the URL origin only; an aborted `signal` ends the POST and its
 * stream (`HTTP_CANCELLED`).
 *
 * Each POST carries the configured headers, then exactly the `headers` the client passed, then
 * the transport's own (`Content-Type`, `Accept`, `Authorization` from the auth hook, the session
 * id). A request sent with `Mcp-Method` is a stateless modern one (2026-07-28): no session id is
 * echoed or taken from its answer and its SSE stream is never resumed. Otherwise the legacy
 * session id from initialize is echoed, and the `MCP-Protocol-Version` last given is repeated on
 * the transport's own GET and DELETE. Once a legacy session's `notifications/initialized` is
 * accepted, the optional standalone GET stream is opened (see {@link GetStream}); its messages
 * reach `onmessage` like any other. A message the server answers with 404 (or a 400 naming the
 * session) for the session it carried rejects with `HTTP_SESSION_EXPIRED`: the transport drops
 * that session and its GET stream and stays open for a new `initialize`.
 */
export class HttpTransport implements Transport {
  readonly kind = 'http';
  readonly exchangePerMessage = true;
  /** The endpoint origin, safe to show. */
  readonly origin: string;
  onmessage?: ((message: JsonRpcMessage, frameBytes?: number) => void) | undefined;
  onerror?: ((error: Error) => void) | undefined;
  onclose?: ((error?: Error) => void) | undefined;
  ongetstreamstate?: ((state: GetStreamState) => void) | undefined;

  readonly #url: URL;
  readonly #headers: Readonly<Record<string, string>>;
  readonly #limit: number;
  readonly #closeTimeoutMs: number;
  readonly #fetch: typeof fetch;
  readonly #redactor = new Redactor();
  readonly #authorized: AuthorizedFetch;
  readonly #abort = new AbortController();
  readonly #report: HttpFailures;
  readonly #bodyReader: BodyReader;
  #sessionId: string | undefined;
  /** A session was dropped as forgotten and no `initialize` has been sent since. */
  #sessionGone = false;
  /** The `MCP-Protocol-Version` the client last gave a session message, for our GET and DELETE. */
  #protocolVersion: string | undefined;
  #closed = false;
  #posts = 0;
  readonly #replies = new ReplyGate();
  /** The standalone stream of the current session, and what stops it when the session is gone. */
  #getStream: GetStream;
  #getStop = new AbortController();

  constructor(options: HttpTransportOptions) {
    const { url, origin } = validateHttpOptions(options);
    this.#url = url;
    this.origin = origin;
    this.#report = new HttpFailures(
      url,
      this.#redactor,
      () => this.#closed && this.#abort.signal.aborted,
      credentialsOf(options),
    );
    this.#headers = configuredHeaders(options.headers);
    this.#redactor.addHeaders(options.headers);
    this.#limit = options.maxMessageBytes ?? DEFAULT_MESSAGE_BYTES;
    this.#closeTimeoutMs = options.closeTimeoutMs ?? LIMITS.shutdownGraceMs;
    this.#fetch = options.fetch ?? globalThis.fetch;
    this.#authorized = { fetch: this.#fetch, auth: options.auth, redactor: this.#redactor };
    this.#bodyReader = {
      origin,
      limit: this.#limit,
      report: this.#report,
      deliver: (message, frameBytes) => this.#deliver(message, frameBytes),
      nonFatal: (text) => this.#nonFatal(text),
      resume: (request, controller, lastEventId, retryMs) =>
        this.#resume(request, controller, lastEventId, retryMs),
    };
    this.#getStream = this.#newGetStream();
  }

  /** A GET stream for the current session (started once its `notifications/initialized` is accepted). */
  #newGetStream(): GetStream {
    const stream: GetStream = new GetStream({
      origin: this.origin,
      limit: this.#limit,
      signal: AbortSignal.any([this.#abort.signal, this.#getStop.signal]),
      get: (lastEventId, signal) =>
        this.#get(lastEventId, signal).catch((error: unknown) => {
          throw new Error(networkReason(error));
        }),
      onData: (data) => {
        deliverEventData(data, this.#bodyReader);
      },
      onProblem: (text) => this.#report.record(this.#redactor.redact(text)),
      // A forgotten session's stream winds down on its own; its states are no longer news.
      onState: (state) => {
        if (this.#getStream === stream) this.ongetstreamstate?.(state);
      },
    });
    return stream;
  }

  /**
   * The server no longer knows the session `sent`: drop it (unless a newer session replaced it
   * while this message was under way) and stop its GET stream. The transport stays open, so the
   * client can start a new session with `initialize` and send the message again.
   */
  #expired(what: string, status: number, sent: string): HttpTransportError {
    if (this.#sessionId === sent) {
      this.#sessionId = undefined;
      this.#sessionGone = true;
      this.#getStop.abort();
      this.#getStop = new AbortController();
      const stale = this.#getStream.state;
      this.#getStream = this.#newGetStream();
      if (stale !== 'none') this.ongetstreamstate?.('none');
    }
    return this.#report.error(
      'HTTP_SESSION_EXPIRED',
      `MCP server at ${this.origin} no longer knows the session (HTTP ${status} to ${what})`,
      status,
    );
  }

  /** A 404, or a 400 naming the session (the body is read then): the session is gone. */
  async #forgotSession(response: Response): Promise<boolean> {
    if (response.status === 404) return true;
    return response.status === 400 && namesSession(await errorBody(response));
  }

  /** The standalone GET stream of a legacy session (`none` in the modern era). */
  getStreamState(): GetStreamState {
    return this.#getStream.state;
  }

  /** The legacy `MCP-Protocol-Version` the client last passed, repeated on GET and DELETE. */
  get protocolVersion(): string | undefined {
    return this.#protocolVersion;
  }

  /** True while a legacy session id is held. The id itself is never exposed. */
  get hasSession(): boolean {
    return this.#sessionId !== undefined;
  }

  async start(): Promise<void> {
    if (this.#closed)
      throw this.#report.error('HTTP_CLOSED', `transport to ${this.origin} is closed`);
  }

  async send(message: JsonRpcMessage, options?: TransportSendOptions): Promise<void> {
    if (!isResponse(message)) return this.#post(message, options);
    // Replies to server requests share a few POST slots and a capped queue per connection.
    return this.#replies.send(message, this.#report, () => this.#post(message, options));
  }

  async #post(message: JsonRpcMessage, options: TransportSendOptions | undefined): Promise<void> {
    if (this.#closed) {
      throw this.#report.error('HTTP_CLOSED', `transport to ${this.origin} is closed`);
    }
    const body = JSON.stringify(message);
    if (Buffer.byteLength(body) > this.#limit) {
      throw this.#report.error(
        'HTTP_BODY_TOO_LARGE',
        `${describe(message)} for ${this.origin} exceeds ${this.#limit} bytes; not sent`,
      );
    }
    const given = options?.headers;
    const headers: Record<string, string> = Object.assign({}, this.#headers, given);
    headers[HEADER.contentType] = 'application/json';
    headers[HEADER.accept] = ACCEPT_BOTH;
    const stateless = given?.[HEADER.method] !== undefined;
    const request = isRequest(message) ? message : undefined;
    if (!stateless && this.#sessionGone) {
      // Without its session the server would refuse this with a 400 that names no session; only
      // a new initialize can go out, and the client starts one when it sees this.
      if (request?.method !== 'initialize') {
        throw this.#report.error(
          'HTTP_SESSION_EXPIRED',
          `the session with MCP server at ${this.origin} is gone; ${describe(message)} waits for a new one (initialize)`,
        );
      }
      this.#sessionGone = false;
    }
    if (!stateless) {
      if (this.#sessionId !== undefined) headers[HEADER.sessionId] = this.#sessionId;
      const version = given?.[HEADER.protocolVersion];
      if (version !== undefined) this.#protocolVersion = version;
    }
    // Our own controller also stops a body over the cap; the caller's signal feeds it.
    const controller = new AbortController();
    const cancel = options?.signal;
    const onCancel = () => controller.abort();
    if (cancel?.aborted === true) controller.abort();
    else cancel?.addEventListener('abort', onCancel, { once: true });
    const signal = AbortSignal.any([this.#abort.signal, controller.signal]);
    const sentSession: string | undefined = headers[HEADER.sessionId];
    this.#posts++;
    try {
      let response: Response;
      try {
        response = await fetchAuthorized(this.#authorized, this.#url, headers, body, signal);
      } catch (error) {
        throw this.#report.fetch(error, message, controller);
      }
      if (isRedirect(response.status)) {
        await response.body?.cancel().catch(() => {});
        throw this.#report.redirect(response, message);
      }
      if (!stateless) {
        const session = response.headers.get(HEADER.sessionId);
        if (
          session !== null &&
          session !== '' &&
          (request?.method === 'initialize' || !this.#sessionId)
        )
          this.#sessionId = session;
      }
      if (request === undefined) {
        if (!response.ok && sentSession !== undefined && (await this.#forgotSession(response))) {
          await response.body?.cancel().catch(() => {});
          throw this.#expired(describe(message), response.status, sentSession);
        }
        await response.body?.cancel().catch(() => {});
        if (!response.ok) throw this.#report.status(response.status, message, undefined);
        // The session is established: open the optional stream for server-initiated messages.
        if (isNotification(message) && message.method === 'notifications/initialized')
          this.#getStream.start();
        return;
      }
      await this.#handleResponse(response, request, sentSession, controller, stateless);
    } catch (error) {
      if (isHttpTransportError(error)) {
        this.#report.record(error.message);
        throw error;
      }
      throw this.#report.fetch(error, message, controller);
    } finally {
      cancel?.removeEventListener('abort', onCancel);
    }
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#abort.abort();
    this.#replies.close();
    // The GET stream ends with the abort; an auth hook that ignores the signal must not hold
    // close() longer than the DELETE's own bound.
    await withDeadline(
      () => this.#getStream.settled(),
      this.#closeTimeoutMs,
      'GET stream close',
    ).catch(() => {});
    const session = this.#sessionId;
    this.#sessionId = undefined;
    if (session !== undefined) {
      // Legacy sessions end with a DELETE; a 405 or a failure only costs a diagnostic.
      const headers: Record<string, string> = { ...this.#headers, [HEADER.sessionId]: session };
      if (this.#protocolVersion !== undefined)
        headers[HEADER.protocolVersion] = this.#protocolVersion;
      try {
        await authorize(this.#authorized, headers, AbortSignal.timeout(this.#closeTimeoutMs));
        const response = await this.#fetch(this.#url, {
          method: 'DELETE',
          headers,
          redirect: 'manual',
          signal: AbortSignal.timeout(this.#closeTimeoutMs),
        });
        await response.body?.cancel().catch(() => {});
      } catch (error) {
        this.#report.record(
          `session DELETE to ${this.origin} failed: ${this.#redactor.redact(networkReason(error))}`,
        );
      }
    }
    this.onclose?.();
  }

  diagnostics(): TransportDiagnostics {
    const detail: Record<string, string | number> = {
      origin: this.origin,
      posts: this.#posts,
      repliesDropped: this.#replies.dropped,
      session: this.#sessionId === undefined ? 'none' : 'active',
      getStream: this.#getStream.state,
    };
    if (this.#protocolVersion !== undefined) detail.protocolVersion = this.#protocolVersion;
    return { tail: this.#report.tail(), detail };
  }

  async #handleResponse(
    response: Response,
    request: JsonRpcRequest,
    sentSession: string | undefined,
    controller: AbortController,
    stateless: boolean,
  ): Promise<void> {
    const what = describe(request);
    if (sentSession !== undefined) {
      if (response.status === 404) {
        await response.body?.cancel().catch(() => {});
        throw this.#expired(what, 404, sentSession);
      }
      if (response.status === 400 && response.body !== null) {
        // Read here, as the session check needs it; any other 400 is answered from the same text.
        const text = await errorBody(response);
        if (namesSession(text)) throw this.#expired(what, 400, sentSession);
        if (text === undefined) throw this.#report.status(400, request, undefined);
        answerFromJson(response, text, request, this.#bodyReader);
        return;
      }
    }
    const type = mediaType(response.headers.get(HEADER.contentType));
    if (response.body === null || response.status === 202 || response.status === 204) {
      if (!response.ok) throw this.#report.status(response.status, request, undefined);
      throw this.#report.error(
        'HTTP_INVALID_BODY',
        `MCP server at ${this.origin} answered ${what} with HTTP ${response.status} and no body`,
        response.status,
      );
    }
    if (type === 'text/event-stream' && response.ok) {
      await readEventStream(response.body, request, controller, !stateless, this.#bodyReader);
      return;
    }
    if (type !== 'application/json') {
      if (!response.ok)
        throw this.#report.status(response.status, request, await errorBody(response));
      await response.body.cancel().catch(() => {});
      throw this.#report.error(
        'HTTP_CONTENT_TYPE',
        `MCP server at ${this.origin} answered ${what} with content type ${JSON.stringify(
          type === '' ? '(none)' : type.slice(0, 60),
        )}, expected application/json or text/event-stream`,
        response.status,
      );
    }
    await readJsonBody(response, response.body, request, controller, this.#bodyReader);
  }

  async #resume(
    request: JsonRpcRequest,
    controller: AbortController,
    lastEventId: string,
    retryMs: number,
  ): Promise<ReadableStream<Uint8Array>> {
    const signal = AbortSignal.any([this.#abort.signal, controller.signal]);
    let response: Response;
    try {
      await delay(retryMs, signal);
      response = await this.#get(lastEventId, signal);
    } catch (error) {
      throw this.#report.fetch(error, request, controller);
    }
    const type = mediaType(response.headers.get(HEADER.contentType));
    if (!response.ok || type !== 'text/event-stream' || response.body === null) {
      await response.body?.cancel().catch(() => {});
      throw this.#report.error(
        'HTTP_STREAM_ENDED',
        `the SSE stream from MCP server at ${this.origin} ended before the response to ${describe(request)}, and resuming it failed (HTTP ${response.status})`,
        response.status,
      );
    }
    return response.body;
  }

  /**
   * A GET for an event stream in the legacy session: the resumption of a POST's stream, or the
   * standalone stream. Redirects are never followed; a network failure is described safely.
   */
  async #get(lastEventId: string | undefined, signal: AbortSignal): Promise<Response> {
    const headers: Record<string, string> = {
      ...this.#headers,
      [HEADER.accept]: 'text/event-stream',
    };
    if (lastEventId !== undefined) headers[HEADER.lastEventId] = lastEventId;
    if (this.#sessionId !== undefined) headers[HEADER.sessionId] = this.#sessionId;
    if (this.#protocolVersion !== undefined)
      headers[HEADER.protocolVersion] = this.#protocolVersion;
    return fetchAuthorized(this.#authorized, this.#url, headers, undefined, signal);
  }

  #deliver(message: JsonRpcMessage, frameBytes?: number): void {
    if (!this.#closed) this.onmessage?.(message, frameBytes);
  }

  #nonFatal(text: string): void {
    this.onerror?.(this.#report.problem(text));
  }
}

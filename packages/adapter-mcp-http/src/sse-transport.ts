/**
 * The HTTP+SSE transport of MCP 2024-11-05: a GET opens an event stream whose first `endpoint`
 * event names the URL to POST messages to; everything the server sends (responses included)
 * arrives on that stream as `message` events. Deprecated since 2025-03-26 but still what many
 * hosted servers speak; CLAT uses it for entries with `"type": "sse"` and as the fallback of a
 * Streamable HTTP entry whose server refuses `initialize` with 400, 404 or 405.
 * @module
 */

import {
  type GetStreamState,
  isNotification,
  isRequest,
  isResponse,
  type JsonRpcMessage,
  MCP_LIMITS,
  type Transport,
  type TransportDiagnostics,
} from '@clat/adapter-mcp';
import { Redactor } from '@clat/kernel';
import { type AuthorizedFetch, fetchAuthorized } from './authorized-fetch.js';
import { BodyTooLarge, errorBody, readSse } from './body-reader.js';
import { HttpTransportError, isHttpTransportError } from './errors.js';
import {
  credentialsOf,
  describe,
  HttpFailures,
  isRedirect,
  networkReason,
} from './http-failures.js';
import { configuredHeaders, HEADER, mediaType } from './http-headers.js';
import { type HttpTransportOptions, validateHttpOptions } from './http-options.js';
import { ReplyGate } from './reply-gate.js';
import { deliverEventData } from './response-body.js';

/** The options of an HTTP+SSE transport: those of Streamable HTTP, `url` being the stream's. */
export interface SseTransportOptions extends Omit<HttpTransportOptions, 'closeTimeoutMs'> {
  /**
   * Bound from the GET until the `endpoint` event, and of each POST until the server accepts the
   * message (default: the legacy handshake's 10 s). Some servers never answer a POST for a
   * session they do not know.
   */
  timeoutMs?: number | undefined;
}

/** A request POSTed and not answered yet: its send settles with the answer or the stream's end. */
interface Awaiting {
  readonly what: string;
  settle(error?: Error): void;
}

/**
 * One HTTP+SSE connection. `start` opens the stream and waits for its endpoint. `send` POSTs one
 * message there; for a request it resolves once the response came through `onmessage`, and it
 * rejects with `HTTP_STREAM_ENDED` when the stream ends first (the server may have run it, so it
 * is never sent again). The stream is the session: when it ends the transport stays open without
 * one, refuses everything but `initialize` with `HTTP_SESSION_EXPIRED` (so the client core starts
 * a new session, see `isSessionExpired`), and opens a new stream for that `initialize`. A 404 to
 * a POST means the same. Errors name the URL origin only; redirects are never followed, and the
 * endpoint must be on the stream's origin so configured headers never travel elsewhere.
 */
export class SseTransport implements Transport {
  readonly kind = 'sse';
  /** The endpoint origin, safe to show. */
  readonly origin: string;
  onmessage?: ((message: JsonRpcMessage, frameBytes?: number) => void) | undefined;
  onerror?: ((error: Error) => void) | undefined;
  onclose?: ((error?: Error) => void) | undefined;
  ongetstreamstate?: ((state: GetStreamState) => void) | undefined;

  readonly #url: URL;
  readonly #headers: Readonly<Record<string, string>>;
  readonly #limit: number;
  readonly #timeoutMs: number;
  readonly #redactor = new Redactor();
  readonly #authorized: AuthorizedFetch;
  readonly #abort = new AbortController();
  readonly #report: HttpFailures;
  readonly #reader: Parameters<typeof deliverEventData>[1];
  readonly #replies = new ReplyGate();
  readonly #awaiting = new Map<string | number, Awaiting>();
  /** Where messages go while the current stream lives; undefined without a session. */
  #endpoint: URL | undefined;
  /** Ends the current stream (close, a POST's 404). */
  #streamStop = new AbortController();
  /** A stream being opened (start, or the `initialize` of a new session). */
  #connecting: Promise<void> | undefined;
  #state: GetStreamState = 'none';
  #closed = false;
  #posts = 0;
  #streams = 0;

  constructor(options: SseTransportOptions) {
    const { url, origin } = validateHttpOptions(options);
    this.#url = url;
    this.origin = origin;
    this.#report = new HttpFailures(
      url,
      this.#redactor,
      () => this.#closed,
      credentialsOf(options),
    );
    this.#headers = configuredHeaders(options.headers);
    this.#redactor.addHeaders(options.headers);
    this.#limit = options.maxMessageBytes ?? MCP_LIMITS.stdioFrameBytes;
    this.#timeoutMs = options.timeoutMs ?? MCP_LIMITS.legacyHandshakeMs;
    this.#authorized = {
      fetch: options.fetch ?? globalThis.fetch,
      auth: options.auth,
      redactor: this.#redactor,
    };
    this.#reader = {
      origin,
      deliver: (message, frameBytes) => this.#deliver(message, frameBytes),
      nonFatal: (text) => this.#nonFatal(text),
    };
  }

  /** The session's stream: `open` while it lives, `closed` once it ended without a new one. */
  getStreamState(): GetStreamState {
    return this.#state;
  }

  /** True while a stream and its endpoint are up. The endpoint itself is never exposed. */
  get hasSession(): boolean {
    return this.#endpoint !== undefined;
  }

  async start(): Promise<void> {
    if (this.#closed) throw this.#closedError();
    await this.#open();
  }

  async send(message: JsonRpcMessage): Promise<void> {
    if (!isResponse(message)) return this.#post(message);
    // Replies to server requests share a few POST slots and a capped queue per connection.
    return this.#replies.send(message, this.#report, () => this.#post(message));
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    // Ending the stream ends the session: 2024-11-05 has no DELETE.
    this.#abort.abort();
    this.#replies.close();
    this.#endpoint = undefined;
    this.#failAwaiting(() => this.#closedError());
    this.#setState('closed');
    this.onclose?.();
  }

  diagnostics(): TransportDiagnostics {
    return {
      tail: this.#report.tail(),
      detail: {
        origin: this.origin,
        streams: this.#streams,
        posts: this.#posts,
        repliesDropped: this.#replies.dropped,
        session: this.#endpoint === undefined ? 'none' : 'active',
        getStream: this.#state,
      },
    };
  }

  /** Opens a stream unless one is opening already; every caller waits for the same one. */
  #open(): Promise<void> {
    this.#connecting ??= this.#connect().finally(() => {
      this.#connecting = undefined;
    });
    return this.#connecting;
  }

  /** GET the stream, then wait (bounded) for its endpoint; the stream is read until it ends. */
  async #connect(): Promise<void> {
    const stop = new AbortController();
    this.#streamStop = stop;
    this.#streams++;
    this.#setState('opening');
    const signal = AbortSignal.any([this.#abort.signal, stop.signal]);
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      stop.abort();
    }, this.#timeoutMs);
    try {
      const response = await this.#get(signal);
      const endpoint = await this.#readStream(response, stop, signal);
      if (this.#closed) throw this.#closedError();
      this.#endpoint = endpoint;
      this.#setState('open');
    } catch (error) {
      stop.abort();
      this.#setState('closed');
      const failure = timedOut
        ? this.#report.error(
            'HTTP_NETWORK',
            `MCP server at ${this.origin} did not name its HTTP+SSE endpoint within ${this.#timeoutMs} ms`,
          )
        : this.#closed
          ? this.#closedError()
          : isHttpTransportError(error)
            ? error
            : this.#report.error(
                'HTTP_NETWORK',
                `connection to MCP server at ${this.origin} failed opening its HTTP+SSE stream: ${this.#redactor.redact(networkReason(error))}`,
              );
      this.#report.record(failure.message);
      throw failure;
    } finally {
      clearTimeout(timer);
    }
  }

  /** The stream's GET: checked for status and content type, never redirected. */
  async #get(signal: AbortSignal): Promise<Response> {
    const headers: Record<string, string> = Object.assign({}, this.#headers);
    headers[HEADER.accept] = 'text/event-stream';
    const response = await fetchAuthorized(this.#authorized, this.#url, headers, undefined, signal);
    if (isRedirect(response.status)) {
      await response.body?.cancel().catch(() => {});
      throw this.#report.redirect(response, 'the HTTP+SSE stream (GET)');
    }
    if (!response.ok) {
      throw this.#report.status(
        response.status,
        'the HTTP+SSE stream (GET)',
        await errorBody(response),
      );
    }
    const type = mediaType(response.headers.get(HEADER.contentType));
    if (type !== 'text/event-stream' || response.body === null) {
      await response.body?.cancel().catch(() => {});
      throw this.#report.error(
        'HTTP_CONTENT_TYPE',
        `MCP server at ${this.origin} answered the HTTP+SSE stream (GET) with content type ${JSON.stringify(
          type === '' ? '(none)' : type.slice(0, 60),
        )}, expected text/event-stream`,
        response.status,
      );
    }
    return response;
  }

  /**
   * Reads the stream in the background and resolves with its endpoint: the first `endpoint`
   * event, resolved against the stream URL and on its origin. Messages are delivered as they come;
   * when the stream ends the session is gone ({@link #ended}).
   */
  #readStream(response: Response, stop: AbortController, signal: AbortSignal): Promise<URL> {
    const body = response.body as ReadableStream<Uint8Array>;
    return new Promise<URL>((resolve, reject) => {
      let endpoint: URL | undefined;
      let problem: Error | undefined;
      const reading = readSse(body, {
        limit: this.#limit,
        onEvent: (event) => {
          if (event.event === 'endpoint') {
            if (endpoint !== undefined) return false; // named once; a later one changes nothing
            try {
              endpoint = this.#endpointOf(event.data);
            } catch (error) {
              problem = error as Error;
              return true;
            }
            resolve(endpoint);
            return false;
          }
          if (event.event !== undefined && event.event !== 'message') return false;
          if (event.data === '') return false;
          const message = deliverEventData(event.data, this.#reader);
          if (message !== undefined && isResponse(message) && message.id !== null)
            this.#answered(message.id);
          return false;
        },
      });
      const abortListener = () => reject(signal.reason);
      signal.addEventListener('abort', abortListener, { once: true });
      void reading
        .then(
          () => problem,
          (error: unknown) =>
            error instanceof BodyTooLarge
              ? this.#report.error(
                  'HTTP_BODY_TOO_LARGE',
                  `MCP server at ${this.origin} sent more than ${error.limit} bytes in one HTTP+SSE event; the stream was closed`,
                )
              : error,
        )
        .then((reason: unknown) => {
          signal.removeEventListener('abort', abortListener);
          stop.abort();
          if (endpoint === undefined) {
            reject(
              reason ??
                this.#report.error(
                  'HTTP_STREAM_ENDED',
                  `the HTTP+SSE stream of MCP server at ${this.origin} ended before it named its endpoint`,
                ),
            );
          } else if (this.#streamStop === stop) this.#ended(reason);
        });
    });
  }

  /** The endpoint event's URL, refused unless it is on the stream's origin without credentials. */
  #endpointOf(data: string): URL {
    let url: URL;
    try {
      url = new URL(data.trim(), this.#url);
    } catch {
      throw this.#report.error(
        'HTTP_INVALID_BODY',
        `MCP server at ${this.origin} named an HTTP+SSE endpoint that is not a URL`,
      );
    }
    if (url.origin !== this.origin || url.username !== '' || url.password !== '') {
      throw this.#report.error(
        'HTTP_INVALID_BODY',
        `MCP server at ${this.origin} named an HTTP+SSE endpoint ${url.origin === this.origin ? 'with credentials in it' : `on another origin (${url.origin})`}; CLAT posts messages only to the origin it connected to`,
      );
    }
    return url;
  }

  /**
   * The stream ended on its own (server restart, idle timeout, a reset): the session is gone.
   * Requests still waiting fail (the server may have run them), and the next `initialize` opens a
   * new stream.
   */
  #ended(reason: unknown): void {
    const why =
      reason === undefined
        ? 'ended its HTTP+SSE stream'
        : `broke its HTTP+SSE stream (${this.#redactor.redact(isHttpTransportError(reason) ? reason.message : networkReason(reason))})`;
    this.#sessionLost(why);
  }

  /** The session is gone (`why` says how): its requests fail, the next initialize starts anew. */
  #sessionLost(why: string): void {
    if (this.#closed) return;
    this.#endpoint = undefined;
    this.#setState('closed');
    const text = `MCP server at ${this.origin} ${why}; the next request starts a new session`;
    this.#report.record(text);
    this.onerror?.(new HttpTransportError('HTTP_STREAM_ENDED', this.origin, text));
    this.#failAwaiting((what) =>
      this.#report.error(
        'HTTP_STREAM_ENDED',
        `the HTTP+SSE stream of MCP server at ${this.origin} ended before the response to ${what}`,
      ),
    );
  }

  async #post(message: JsonRpcMessage): Promise<void> {
    if (this.#closed) throw this.#closedError();
    const body = JSON.stringify(message);
    if (Buffer.byteLength(body) > this.#limit) {
      throw this.#report.error(
        'HTTP_BODY_TOO_LARGE',
        `${describe(message)} for ${this.origin} exceeds ${this.#limit} bytes; not sent`,
      );
    }
    const request = isRequest(message) ? message : undefined;
    if (this.#endpoint === undefined) {
      // A new session starts with initialize; nothing else may reach a stream before it does.
      if (request?.method === 'initialize') await this.#open();
      if (this.#endpoint === undefined) {
        const error = this.#report.error(
          'HTTP_SESSION_EXPIRED',
          `the HTTP+SSE stream of MCP server at ${this.origin} is gone; ${describe(message)} waits for a new session (initialize)`,
        );
        this.#report.record(error.message);
        throw error;
      }
    }
    const endpoint = this.#endpoint;
    if (isNotification(message) && message.method === 'notifications/cancelled') {
      // The client gave up on that request: its send no longer waits for an answer.
      const id = (message.params as { requestId?: unknown } | undefined)?.requestId;
      if (typeof id === 'string' || typeof id === 'number') this.#answered(id);
    }
    // Registered before the POST: a quick server answers on the stream before the 202 arrives.
    const answer = request === undefined ? undefined : this.#await(request.id, describe(message));
    // Awaited only once the POST went through; a failure before that reports the POST's error.
    answer?.catch(() => {});
    const headers: Record<string, string> = Object.assign({}, this.#headers);
    headers[HEADER.contentType] = 'application/json';
    const stop = this.#streamStop;
    const signal = AbortSignal.any([this.#abort.signal, AbortSignal.timeout(this.#timeoutMs)]);
    this.#posts++;
    try {
      let response: Response;
      try {
        response = await fetchAuthorized(this.#authorized, endpoint, headers, body, signal);
      } catch (error) {
        throw this.#report.fetch(error, message, new AbortController());
      }
      if (isRedirect(response.status)) {
        await response.body?.cancel().catch(() => {});
        throw this.#report.redirect(response, message);
      }
      if (response.status === 404 && this.#endpoint === endpoint) {
        // The server forgot this session (it restarted and its stream has not ended yet).
        await response.body?.cancel().catch(() => {});
        if (request !== undefined) this.#awaiting.delete(request.id);
        if (this.#streamStop === stop) {
          this.#streamStop = new AbortController();
          stop.abort();
          this.#sessionLost(`forgot the session (HTTP 404 to ${describe(message)})`);
        }
        throw this.#report.error(
          'HTTP_SESSION_EXPIRED',
          `MCP server at ${this.origin} no longer knows the HTTP+SSE session (HTTP 404 to ${describe(message)})`,
          404,
        );
      }
      if (!response.ok)
        throw this.#report.status(response.status, message, await errorBody(response));
      await response.body?.cancel().catch(() => {});
    } catch (error) {
      if (request !== undefined) this.#awaiting.delete(request.id);
      const failure = isHttpTransportError(error)
        ? error
        : this.#report.fetch(error, message, new AbortController());
      this.#report.record(failure.message);
      throw failure;
    }
    await answer;
  }

  /** A promise that settles when `id` is answered on the stream, or the stream ends first. */
  #await(id: string | number, what: string): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.#awaiting.set(id, {
        what,
        settle: (error) => (error === undefined ? resolve() : reject(error)),
      });
    });
  }

  #answered(id: string | number): void {
    const awaiting = this.#awaiting.get(id);
    if (awaiting === undefined) return;
    this.#awaiting.delete(id);
    awaiting.settle();
  }

  #failAwaiting(error: (what: string) => Error): void {
    const waiting = [...this.#awaiting.values()];
    this.#awaiting.clear();
    for (const awaiting of waiting) awaiting.settle(error(awaiting.what));
  }

  #setState(state: GetStreamState): void {
    if (state === this.#state) return;
    this.#state = state;
    this.ongetstreamstate?.(state);
  }

  #deliver(message: JsonRpcMessage, frameBytes?: number): void {
    if (!this.#closed) this.onmessage?.(message, frameBytes);
  }

  #nonFatal(text: string): void {
    this.onerror?.(this.#report.problem(text));
  }

  #closedError(): HttpTransportError {
    return this.#report.error('HTTP_CLOSED', `transport to ${this.origin} is closed`);
  }
}

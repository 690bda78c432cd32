/**
 * Streamable HTTP transport: one POST per JSON-RPC message, JSON or SSE responses, legacy sessions
 * and the per-request headers of the modern (2026-07-28) revision.
 * @module
 */

import {
  type GetStreamState,
  type HttpServerConfig,
  isNotification,
  isRequest,
  isResponse,
  type JsonRpcMessage,
  type JsonRpcRequest,
  type JsonRpcSuccess,
  MCP_LIMITS,
  parseJsonRpcMessage,
  type Transport,
  type TransportDiagnostics,
  type TransportFactory,
} from '@clat/adapter-mcp';
import { delay, errorMessage, isJsonObject, LIMITS, Redactor, withDeadline } from '@clat/kernel';
import { BodyTooLarge, readBoundedText, readSse } from './body-reader.js';
import { HttpTransportError, type HttpTransportErrorCode, isHttpTransportError } from './errors.js';
import { GetStream } from './get-stream.js';
import type { HttpAuth } from './http-auth.js';
import {
  ACCEPT_BOTH,
  HEADER,
  headerProblem,
  modernRequestHeaders,
  modernVersionOf,
} from './http-headers.js';
import { type ParamHeader, paramHeaderValues, scanParamHeaders } from './param-headers.js';
import { REPLY_POSTS_MAX, REPLY_QUEUE_MAX, ReplyGate } from './reply-gate.js';
import { SSE_DEFAULT_RETRY_MS, SSE_RESUME_ATTEMPTS } from './sse-limits.js';

export interface HttpTransportOptions {
  /** The server endpoint (http or https). Only its origin ever appears in errors or status. */
  url: string;
  /** Caller-provided headers (e.g. Authorization). Kept in memory only, sent on every request. */
  headers?: Record<string, string> | undefined;
  /** Cap of one response body or SSE event, and of one outbound message. */
  maxMessageBytes?: number | undefined;
  /** Bound of the session DELETE sent on close. */
  closeTimeoutMs?: number | undefined;
  /** Replaces the global fetch (tests inject faults through real servers, not this). */
  fetch?: typeof fetch | undefined;
  /** Supplies `Authorization` per request and handles 401/403 (e.g. an OAuthClient). */
  auth?: HttpAuth | undefined;
}

/** Requests one message may send after 401/403 answers (refresh, then one step-up). */
const AUTH_RETRIES = 2;

// Same cap as one stdio frame: the limits table fixes one message size for every transport.
const DEFAULT_MESSAGE_BYTES = MCP_LIMITS.stdioFrameBytes;
const FAILURES_KEPT = LIMITS.stderrTailLines;
const BODY_SNIPPET_CHARS = 200;

interface Inflight {
  controller: AbortController;
  modern: boolean;
}

function idKey(id: unknown): string {
  return `${typeof id}:${String(id)}`;
}

function validate(options: HttpTransportOptions): { url: URL; origin: string } {
  let url: URL;
  try {
    url = new URL(options.url);
  } catch {
    throw new HttpTransportError(
      'HTTP_CONFIG_INVALID',
      '(invalid URL)',
      'MCP server URL is not an absolute URL',
    );
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new HttpTransportError(
      'HTTP_CONFIG_INVALID',
      url.origin,
      `MCP server URL must use http or https, not ${url.protocol.replace(':', '')}`,
    );
  }
  if (url.username !== '' || url.password !== '') {
    throw new HttpTransportError(
      'HTTP_CONFIG_INVALID',
      url.origin,
      `MCP server URL for ${url.origin} must not embed credentials; put them in "headers"`,
    );
  }
  for (const [name, value] of Object.entries(options.headers ?? {})) {
    const problem = headerProblem(name, value);
    if (problem !== undefined) {
      throw new HttpTransportError(
        'HTTP_CONFIG_INVALID',
        url.origin,
        `${problem} (MCP server at ${url.origin})`,
      );
    }
  }
  return { url, origin: url.origin };
}

/**
 * A Streamable HTTP connection to one MCP server. `send` resolves once the server accepted the
 * message: for a request, once its response was delivered through `onmessage` (JSON or SSE); for
 * a notification or response, once the server answered 2xx (usually 202). It rejects with an
 * {@link HttpTransportError} naming the URL origin only.
 *
 * Era handling needs no help from the client core: a request whose `_meta` carries a protocol
 * version is sent as modern (`MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name`, no session);
 * otherwise the legacy session id from initialize is echoed, with the negotiated
 * `MCP-Protocol-Version` read from the initialize result or set through {@link setProtocolVersion}.
 * Once a legacy session's `notifications/initialized` is accepted, the optional standalone GET
 * stream is opened (see {@link GetStream}); its messages reach `onmessage` like any other.
 */
export class HttpTransport implements Transport {
  readonly kind = 'http';
  /** The endpoint origin, safe to show. */
  readonly origin: string;
  onmessage?: ((message: JsonRpcMessage, frameBytes?: number) => void) | undefined;
  onerror?: ((error: Error) => void) | undefined;
  onclose?: ((error?: Error) => void) | undefined;

  readonly #url: URL;
  readonly #headers: Readonly<Record<string, string>>;
  readonly #limit: number;
  readonly #closeTimeoutMs: number;
  readonly #fetch: typeof fetch;
  readonly #auth: HttpAuth | undefined;
  readonly #redactor = new Redactor();
  readonly #abort = new AbortController();
  readonly #inflight = new Map<string, Inflight>();
  readonly #failures: string[] = [];
  /** `x-mcp-header` declarations per tool, from modern tools/list results. */
  readonly #paramHeaders = new Map<string, ParamHeader[]>();
  /** Ids of modern tools/list requests in flight, whose results are scanned. */
  readonly #modernLists = new Set<string>();
  #sessionId: string | undefined;
  #protocolVersion: string | undefined;
  #lastInitializeId: unknown;
  #closed = false;
  #posts = 0;
  readonly #replies = new ReplyGate();
  #repliesDropped = 0;
  readonly #getStream: GetStream;

  constructor(options: HttpTransportOptions) {
    const { url, origin } = validate(options);
    this.#url = url;
    this.origin = origin;
    // Lower-cased so a caller's `Accept` or `Content-Type` is replaced by the protocol's own
    // value instead of being merged with it.
    this.#headers = Object.freeze(
      Object.fromEntries(
        Object.entries(options.headers ?? {}).map(([name, value]) => [name.toLowerCase(), value]),
      ),
    );
    this.#redactor.addHeaders(options.headers);
    this.#limit = options.maxMessageBytes ?? DEFAULT_MESSAGE_BYTES;
    this.#closeTimeoutMs = options.closeTimeoutMs ?? LIMITS.shutdownGraceMs;
    this.#fetch = options.fetch ?? globalThis.fetch;
    this.#auth = options.auth;
    this.#getStream = new GetStream({
      origin: this.origin,
      limit: this.#limit,
      signal: this.#abort.signal,
      get: (lastEventId, signal) =>
        this.#get(lastEventId, signal).catch((error: unknown) => {
          throw new Error(networkReason(error));
        }),
      onData: (data) => {
        this.#deliverEventData(data);
      },
      onProblem: (text) => this.#recordFailure(this.#redactor.redact(text)),
    });
  }

  /** The standalone GET stream of a legacy session (`none` in the modern era). */
  getStreamState(): GetStreamState {
    return this.#getStream.state;
  }

  /** The legacy protocol version sent as `MCP-Protocol-Version`, once negotiated. */
  get protocolVersion(): string | undefined {
    return this.#protocolVersion;
  }

  /** True while a legacy session id is held. The id itself is never exposed. */
  get hasSession(): boolean {
    return this.#sessionId !== undefined;
  }

  /**
   * Tells the transport the legacy version negotiated by initialize, for the
   * `MCP-Protocol-Version` header of later requests. Optional: the transport also reads it from
   * the initialize result it carries. Modern requests take the version from their own `_meta`.
   */
  setProtocolVersion(version: string): void {
    this.#protocolVersion = version;
  }

  async start(): Promise<void> {
    if (this.#closed) throw this.#error('HTTP_CLOSED', `transport to ${this.origin} is closed`);
  }

  async send(message: JsonRpcMessage): Promise<void> {
    if (!isResponse(message)) return this.#post(message);
    // Replies to server requests share a few POST slots and a capped queue per connection.
    if (!(await this.#replies.acquire())) {
      this.#repliesDropped++;
      const error = this.#error(
        'HTTP_REPLY_DROPPED',
        `dropped ${describe(message)} for ${this.origin}: ${REPLY_POSTS_MAX} replies in flight and ${REPLY_QUEUE_MAX} queued (${this.#repliesDropped} dropped so far)`,
      );
      this.#recordFailure(error.message);
      throw error;
    }
    try {
      await this.#post(message);
    } finally {
      this.#replies.release();
    }
  }

  async #post(message: JsonRpcMessage): Promise<void> {
    if (this.#closed) {
      throw this.#error('HTTP_CLOSED', `transport to ${this.origin} is closed`);
    }
    if (isNotification(message) && message.method === 'notifications/cancelled') {
      // A cancelled request's POST is aborted here. In the modern era closing the stream IS the
      // cancel signal and no notification is posted.
      const requestId = message.params?.requestId;
      const inflight = this.#inflight.get(idKey(requestId));
      if (inflight !== undefined) {
        inflight.controller.abort();
        if (inflight.modern) return;
      }
    }
    const body = JSON.stringify(message);
    if (Buffer.byteLength(body) > this.#limit) {
      throw this.#error(
        'HTTP_BODY_TOO_LARGE',
        `${describe(message)} for ${this.origin} exceeds ${this.#limit} bytes; not sent`,
      );
    }
    const modernVersion = modernVersionOf(message);
    const headers: Record<string, string> = {
      ...this.#headers,
      [HEADER.contentType]: 'application/json',
      [HEADER.accept]: ACCEPT_BOTH,
    };
    if (modernVersion !== undefined) {
      headers[HEADER.protocolVersion] = modernVersion;
      if (isRequest(message)) {
        Object.assign(headers, modernRequestHeaders(message.method, message.params));
        if (message.method === 'tools/list') this.#modernLists.add(idKey(message.id));
        if (message.method === 'tools/call' && typeof message.params?.name === 'string') {
          const declared = this.#paramHeaders.get(message.params.name) ?? [];
          Object.assign(headers, paramHeaderValues(declared, message.params.arguments));
        }
      }
    } else {
      if (this.#sessionId !== undefined) headers[HEADER.sessionId] = this.#sessionId;
      if (this.#protocolVersion !== undefined)
        headers[HEADER.protocolVersion] = this.#protocolVersion;
    }
    const request = isRequest(message) ? message : undefined;
    if (request?.method === 'initialize') this.#lastInitializeId = request.id;
    const controller = new AbortController();
    const key = request === undefined ? undefined : idKey(request.id);
    if (key !== undefined)
      this.#inflight.set(key, { controller, modern: modernVersion !== undefined });
    const signal = AbortSignal.any([this.#abort.signal, controller.signal]);
    const sentSession = headers[HEADER.sessionId] !== undefined;
    this.#posts++;
    try {
      let response: Response;
      try {
        response = await this.#fetchAuthorized(headers, body, signal);
      } catch (error) {
        throw this.#fetchFailure(error, message, controller);
      }
      if (isRedirect(response.status)) {
        await response.body?.cancel().catch(() => {});
        throw this.#redirectError(response, message);
      }
      if (modernVersion === undefined) {
        const session = response.headers.get(HEADER.sessionId);
        if (
          session !== null &&
          session !== '' &&
          (request?.method === 'initialize' || !this.#sessionId)
        )
          this.#sessionId = session;
      }
      if (request === undefined) {
        await response.body?.cancel().catch(() => {});
        if (!response.ok) throw this.#statusError(response.status, message, undefined);
        // The session is established: open the optional stream for server-initiated messages.
        if (isNotification(message) && message.method === 'notifications/initialized')
          this.#getStream.start();
        return;
      }
      await this.#handleResponse(response, request, sentSession, controller);
    } catch (error) {
      if (isHttpTransportError(error)) {
        this.#recordFailure(error.message);
        throw error;
      }
      throw this.#fetchFailure(error, message, controller);
    } finally {
      if (key !== undefined) this.#modernLists.delete(key);
      if (key !== undefined && this.#inflight.get(key)?.controller === controller)
        this.#inflight.delete(key);
    }
  }

  /**
   * One POST (or GET without a body), with the auth hook's header; a 401 (or a 403 naming
   * `insufficient_scope`) goes to the hook, which may obtain new credentials for a bounded number
   * of retries.
   */
  async #fetchAuthorized(
    headers: Record<string, string>,
    body: string | undefined,
    signal: AbortSignal,
  ): Promise<Response> {
    for (let attempt = 0; ; attempt++) {
      await this.#authorize(headers, signal);
      const init: RequestInit = { method: 'GET', headers, signal, redirect: 'manual' };
      if (body !== undefined) {
        init.method = 'POST';
        init.body = body;
      }
      const response = await this.#fetch(this.#url, init);
      const status = response.status;
      if (this.#auth === undefined || (status !== 401 && status !== 403) || attempt >= AUTH_RETRIES)
        return response;
      const wwwAuthenticate = response.headers.get('www-authenticate');
      if (status === 403 && !/insufficient_scope/i.test(wwwAuthenticate ?? '')) return response;
      await response.body?.cancel().catch(() => {});
      const verdict = await this.#auth.onUnauthorized({ status, wwwAuthenticate }, signal);
      if (verdict !== 'retry') {
        return new Response(null, { status, headers: response.headers });
      }
    }
  }

  async #authorize(headers: Record<string, string>, signal: AbortSignal): Promise<void> {
    if (this.#auth === undefined) return;
    const value = await this.#auth.header(signal);
    if (value === undefined) delete headers[HEADER.authorization];
    else {
      headers[HEADER.authorization] = value;
      this.#redactor.add(value);
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
        await this.#authorize(headers, AbortSignal.timeout(this.#closeTimeoutMs));
        const response = await this.#fetch(this.#url, {
          method: 'DELETE',
          headers,
          redirect: 'manual',
          signal: AbortSignal.timeout(this.#closeTimeoutMs),
        });
        await response.body?.cancel().catch(() => {});
      } catch (error) {
        this.#recordFailure(
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
      repliesDropped: this.#repliesDropped,
      session: this.#sessionId === undefined ? 'none' : 'active',
      getStream: this.#getStream.state,
    };
    if (this.#protocolVersion !== undefined) detail.protocolVersion = this.#protocolVersion;
    return { tail: [...this.#failures], detail };
  }

  async #handleResponse(
    response: Response,
    request: JsonRpcRequest,
    sentSession: boolean,
    controller: AbortController,
  ): Promise<void> {
    const what = describe(request);
    if (response.status === 404 && sentSession) {
      await response.body?.cancel().catch(() => {});
      this.#sessionId = undefined;
      const error = this.#error(
        'HTTP_SESSION_EXPIRED',
        `MCP server at ${this.origin} no longer knows the session (HTTP 404 to ${what})`,
        response.status,
      );
      queueMicrotask(() => this.#fail(error));
      throw error;
    }
    const type = mediaType(response.headers.get(HEADER.contentType));
    if (response.body === null || response.status === 202 || response.status === 204) {
      if (!response.ok) throw this.#statusError(response.status, request, undefined);
      throw this.#error(
        'HTTP_INVALID_BODY',
        `MCP server at ${this.origin} answered ${what} with HTTP ${response.status} and no body`,
        response.status,
      );
    }
    if (type === 'text/event-stream' && response.ok) {
      const legacy = modernVersionOf(request) === undefined;
      await this.#readEventStream(response.body, request, controller, legacy);
      return;
    }
    if (type !== 'application/json') {
      if (!response.ok)
        throw this.#statusError(response.status, request, await this.#snippet(response));
      await response.body.cancel().catch(() => {});
      throw this.#error(
        'HTTP_CONTENT_TYPE',
        `MCP server at ${this.origin} answered ${what} with content type ${JSON.stringify(
          type === '' ? '(none)' : type.slice(0, 60),
        )}, expected application/json or text/event-stream`,
        response.status,
      );
    }
    let text: string;
    try {
      text = await readBoundedText(response.body, this.#limit);
    } catch (error) {
      throw this.#bodyFailure(error, request, controller, response.status);
    }
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      if (!response.ok) throw this.#statusError(response.status, request, text);
      throw this.#error(
        'HTTP_INVALID_BODY',
        `MCP server at ${this.origin} answered ${what} with invalid JSON`,
        response.status,
      );
    }
    const messages = Array.isArray(value) ? value : [value];
    // A body holding one message is its frame: the client sizes a result from it.
    const frameBytes = messages.length === 1 ? Buffer.byteLength(text) : undefined;
    let answered = false;
    for (const item of messages) {
      const parsed = parseJsonRpcMessage(item);
      if ('invalid' in parsed) continue;
      // The body of a POST answers that POST: an error with a null id (SDK v1's "Bad Request")
      // belongs to this request, so the client core can read it (era detection needs the code).
      const message =
        'error' in parsed && parsed.id === null ? { ...parsed, id: request.id } : parsed;
      if ('id' in message && !('method' in message) && message.id === request.id) answered = true;
      this.#deliver(message, frameBytes);
    }
    if (answered) return;
    if (!response.ok) throw this.#statusError(response.status, request, text);
    throw this.#error(
      'HTTP_INVALID_BODY',
      `MCP server at ${this.origin} answered ${what} without a JSON-RPC response to it`,
      response.status,
    );
  }

  /**
   * Reads an SSE response until it carries the answer. A legacy stream that ends early after
   * sending event ids is resumed with GET + `Last-Event-ID` after the server's `retry:` delay
   * (2025-11-25 polling); a modern stream is never resumed (the spec says re-issue instead).
   */
  async #readEventStream(
    first: ReadableStream<Uint8Array>,
    request: JsonRpcRequest,
    controller: AbortController,
    legacy: boolean,
  ): Promise<void> {
    let body = first;
    let lastEventId: string | undefined;
    let retryMs = SSE_DEFAULT_RETRY_MS;
    for (let attempt = 0; ; attempt++) {
      const answered = await this.#readEvents(body, request, controller, {
        onId: (id) => {
          lastEventId = id;
        },
        onRetry: (ms) => {
          retryMs = ms;
        },
      });
      if (answered) return;
      if (!legacy || lastEventId === undefined || attempt >= SSE_RESUME_ATTEMPTS) {
        throw this.#error(
          'HTTP_STREAM_ENDED',
          `the SSE stream from MCP server at ${this.origin} ended before the response to ${describe(request)}`,
        );
      }
      body = await this.#resume(request, controller, lastEventId, retryMs);
    }
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
      throw this.#fetchFailure(error, request, controller);
    }
    const type = mediaType(response.headers.get(HEADER.contentType));
    if (!response.ok || type !== 'text/event-stream' || response.body === null) {
      await response.body?.cancel().catch(() => {});
      throw this.#error(
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
    return this.#fetchAuthorized(headers, undefined, signal);
  }

  async #readEvents(
    body: ReadableStream<Uint8Array>,
    request: JsonRpcRequest,
    controller: AbortController,
    track: { onId: (id: string) => void; onRetry: (ms: number) => void },
  ): Promise<boolean> {
    try {
      return await readSse(body, {
        limit: this.#limit,
        onRetry: track.onRetry,
        onEvent: (event) => {
          if (event.id !== undefined && event.id !== '') track.onId(event.id);
          if (event.data === '') return false; // priming events carry an id and no data
          const parsed = this.#deliverEventData(event.data);
          return parsed !== undefined && !('method' in parsed) && parsed.id === request.id;
        },
      });
    } catch (error) {
      throw this.#bodyFailure(error, request, controller, 200);
    }
  }

  /** Parses one SSE event's data and delivers it; a bad event is reported, never fatal. */
  #deliverEventData(data: string): JsonRpcMessage | undefined {
    let value: unknown;
    try {
      value = JSON.parse(data);
    } catch {
      this.#nonFatal(`MCP server at ${this.origin} sent an SSE event that is not JSON`);
      return undefined;
    }
    const parsed = parseJsonRpcMessage(value);
    if ('invalid' in parsed) {
      this.#nonFatal(`MCP server at ${this.origin} sent an invalid message: ${parsed.invalid}`);
      return undefined;
    }
    this.#deliver(parsed, Buffer.byteLength(data));
    return parsed;
  }

  #deliver(message: JsonRpcMessage, frameBytes?: number): void {
    if (this.#closed) return;
    let out = message;
    if ('result' in message) {
      this.#sniffInitialize(message.id, message.result);
      if (this.#modernLists.delete(idKey(message.id))) out = this.#scanTools(message);
    }
    this.onmessage?.(out, frameBytes);
  }

  /**
   * Records each listed tool's `x-mcp-header` declarations and drops tools whose declarations
   * are invalid (2026-07-28: a conforming HTTP client must not call them).
   */
  #scanTools(message: JsonRpcSuccess): JsonRpcSuccess {
    const tools = message.result.tools;
    if (!Array.isArray(tools)) return message;
    const kept: unknown[] = [];
    for (const tool of tools) {
      const name = isJsonObject(tool) && typeof tool.name === 'string' ? tool.name : undefined;
      if (name === undefined) {
        kept.push(tool);
        continue;
      }
      const scan = scanParamHeaders(isJsonObject(tool) ? tool.inputSchema : undefined);
      if ('invalid' in scan) {
        this.#paramHeaders.delete(name);
        this.#nonFatal(
          `dropped tool ${JSON.stringify(name)} of MCP server at ${this.origin}: ${scan.invalid}`,
        );
        continue;
      }
      if (scan.headers.length > 0) this.#paramHeaders.set(name, scan.headers);
      else this.#paramHeaders.delete(name);
      kept.push(tool);
    }
    if (kept.length === tools.length) return message;
    return { ...message, result: { ...message.result, tools: kept } };
  }

  /** Legacy: the initialize result names the version for later `MCP-Protocol-Version` headers. */
  #sniffInitialize(id: unknown, result: Record<string, unknown>): void {
    if (id !== this.#lastInitializeId) return;
    if (typeof result.protocolVersion === 'string') this.#protocolVersion = result.protocolVersion;
  }

  #nonFatal(text: string): void {
    const clean = this.#redactor.redact(text);
    this.#recordFailure(clean);
    this.onerror?.(new HttpTransportError('HTTP_INVALID_BODY', this.origin, clean));
  }

  #fail(error: Error): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#abort.abort();
    this.#replies.close();
    this.onclose?.(error);
  }

  async #snippet(response: Response): Promise<string | undefined> {
    if (response.body === null) return undefined;
    try {
      return await readBoundedText(response.body, 64 * 1024);
    } catch {
      return undefined;
    }
  }

  /**
   * Redirects are never followed: fetch would carry the configured headers (all but
   * Authorization) to wherever the server points, so the user updates the URL instead.
   */
  #redirectError(response: Response, message: JsonRpcMessage): HttpTransportError {
    let target = '(no location)';
    const location = response.headers.get('location');
    if (location !== null) {
      try {
        const url = new URL(location, this.#url);
        target = url.origin === this.origin ? 'another path on the same origin' : url.origin;
      } catch {
        target = '(an invalid location)';
      }
    }
    return this.#error(
      'HTTP_STATUS',
      `MCP server at ${this.origin} redirected ${describe(message)} (HTTP ${response.status}) to ${target}; redirects are not followed so configured headers stay with the configured URL: update the URL in mcp.json`,
      response.status,
    );
  }

  #statusError(
    status: number,
    message: JsonRpcMessage,
    body: string | undefined,
  ): HttpTransportError {
    const hint = status === 401 || status === 403 ? ' (check the configured headers)' : '';
    const clean = body === undefined ? '' : this.#redactor.redact(body).replace(/\s+/g, ' ').trim();
    const snippet =
      clean === ''
        ? ''
        : `: ${clean.length > BODY_SNIPPET_CHARS ? `${clean.slice(0, BODY_SNIPPET_CHARS)}…` : clean}`;
    return this.#error(
      'HTTP_STATUS',
      `MCP server at ${this.origin} answered ${describe(message)} with HTTP ${status}${hint}${snippet}`,
      status,
    );
  }

  #bodyFailure(
    error: unknown,
    request: JsonRpcRequest,
    controller: AbortController,
    status: number,
  ): HttpTransportError {
    if (error instanceof BodyTooLarge) {
      controller.abort();
      return this.#error(
        'HTTP_BODY_TOO_LARGE',
        `MCP server at ${this.origin} sent more than ${error.limit} bytes in one message answering ${describe(request)}; the request was aborted`,
        status,
      );
    }
    return this.#fetchFailure(error, request, controller);
  }

  #fetchFailure(
    error: unknown,
    message: JsonRpcMessage,
    controller: AbortController,
  ): HttpTransportError {
    if (isHttpTransportError(error)) return error;
    if (this.#closed && this.#abort.signal.aborted) {
      return this.#error(
        'HTTP_CLOSED',
        `transport to ${this.origin} closed during ${describe(message)}`,
      );
    }
    if (controller.signal.aborted) {
      return this.#error('HTTP_CANCELLED', `${describe(message)} to ${this.origin} was cancelled`);
    }
    return this.#error(
      'HTTP_NETWORK',
      `connection to MCP server at ${this.origin} failed during ${describe(message)}: ${this.#redactor.redact(networkReason(error))}`,
    );
  }

  #error(code: HttpTransportErrorCode, text: string, status?: number): HttpTransportError {
    return new HttpTransportError(code, this.origin, text, { status });
  }

  #recordFailure(text: string): void {
    this.#failures.push(text);
    if (this.#failures.length > FAILURES_KEPT) this.#failures.shift();
  }
}

/** Short name of a message for errors: `tools/call (id 3)`, `response to 7`. */
function describe(message: JsonRpcMessage): string {
  if ('method' in message) {
    return 'id' in message && message.id !== undefined
      ? `${message.method} (id ${JSON.stringify(message.id)})`
      : message.method;
  }
  return `the response to id ${JSON.stringify(message.id)}`;
}

function isRedirect(status: number): boolean {
  return status >= 300 && status < 400;
}

/** `text/event-stream; charset=utf-8` → `text/event-stream`. */
function mediaType(header: string | null): string {
  return (header ?? '').split(';', 1)[0]?.trim().toLowerCase() ?? '';
}

/** The error code of a failed fetch (ECONNRESET, ECONNREFUSED, UND_ERR_SOCKET…), else its text. */
function networkReason(error: unknown): string {
  let current: unknown = error;
  for (let depth = 0; depth < 4 && current instanceof Error; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string') return code;
    if (current.name === 'TimeoutError') return 'timed out';
    current = current.cause;
  }
  return errorMessage(error).slice(0, BODY_SNIPPET_CHARS);
}

/**
 * Opens {@link HttpTransport}s for one configured server. `probeIsolation` is `'shared'`: each
 * POST stands alone, so a failed modern probe leaves nothing behind.
 */
export class HttpTransportFactory implements TransportFactory {
  readonly kind = 'http';
  readonly probeIsolation = 'shared';
  /** The endpoint origin, safe to show. */
  readonly origin: string;
  readonly #options: HttpTransportOptions;

  /** Validates the URL and headers now, so a bad entry fails at mount with a clear message. */
  constructor(options: HttpTransportOptions) {
    this.origin = validate(options).origin;
    this.#options = { ...options, headers: { ...options.headers } };
  }

  /** A factory for an mcp.json HTTP entry. */
  static fromConfig(
    config: Pick<HttpServerConfig, 'url' | 'headers'>,
    options: Omit<HttpTransportOptions, 'url' | 'headers'> = {},
  ): HttpTransportFactory {
    return new HttpTransportFactory({ ...options, url: config.url, headers: config.headers });
  }

  open(): HttpTransport {
    return new HttpTransport(this.#options);
  }

  /** Never shows header values. */
  toJSON(): Record<string, unknown> {
    return { kind: this.kind, origin: this.origin };
  }
}

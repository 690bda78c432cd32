/**
 * The JSON-RPC engine over one Transport: routes responses by id (in any order), runs
 * server-initiated requests concurrently behind a bounded inbound queue, and owns deadlines,
 * cancellation and the same-connection deadline extension. On a transport with one exchange per
 * message (HTTP) it also hands each message its protocol headers ({@link MessageHeaders}) and each
 * request a signal that ends the exchange when the request is abandoned.
 * @module
 */
import { errorMessage, onAbort as kernelOnAbort } from '@clat/kernel';
import { withoutServerName } from './client-diagnostics.js';
import { DeadlineQueue } from './deadline-queue.js';
import { McpError, McpErrorCode } from './errors.js';
import { MCP_LIMITS } from './limits.js';
import { MessageHeaders } from './message-headers.js';
import {
  PendingRequest,
  type RequestHost,
  type RequestOptions,
  type SizedResult,
} from './pending-request.js';
import { toRpcErrorObject } from './rpc-error.js';
import {
  isFailure,
  isNotification,
  isRequest,
  JsonRpcErrorCode,
  type JsonRpcId,
  type JsonRpcMessage,
  type JsonRpcRequest,
  type Transport,
} from './transport.js';

export type { RequestOptions, SizedResult } from './pending-request.js';

export interface ServerRequestContext {
  id: JsonRpcId;
  method: string;
  /** Aborts when the server cancels this request or the connection ends. */
  signal: AbortSignal;
}

export type ServerRequestHandler = (
  params: Record<string, unknown>,
  ctx: ServerRequestContext,
) => Promise<Record<string, unknown>>;

export interface ServerRequestHandlerOptions {
  /** A pending request of this kind extends the connection's tools/call deadlines (host requests). */
  extendsDeadline?: boolean;
}

export interface RpcSessionOptions {
  server: string;
  /** Outstanding server requests before new ones are rejected. */
  inboundLimit?: number;
  onDiagnostic?: ((message: string) => void) | undefined;
}

/** `{"jsonrpc":"2.0","id":` + `,"result":` + `}`: a compact success frame minus id and result. */
const SUCCESS_ENVELOPE_BYTES = 33;

interface InflightRequest {
  controller: AbortController;
  extendsDeadline: boolean;
  /** The server withdrew the request, so it gets no response. */
  withdrawn: boolean;
}

interface HandlerEntry {
  handler: ServerRequestHandler;
  extendsDeadline: boolean;
}

/** Ids of requests we gave up on, so their late responses are dropped quietly. */
const FORGOTTEN_IDS_KEPT = 256;

export class RpcSession {
  readonly server: string;
  readonly transport: Transport;
  /**
   * The per-message headers, when the transport has one exchange per message; the handshake sets
   * their era and version, the client teaches them the tools' `x-mcp-header` declarations.
   */
  readonly headers: MessageHeaders | undefined;
  readonly #inboundLimit: number;
  readonly #onDiagnostic: (message: string) => void;
  /** Keyed by our own numeric ids, so a response looks up a number, not a fresh string. */
  readonly #pending = new Map<number, PendingRequest>();
  readonly #forgotten = new Set<number>();
  readonly #deadlines = new DeadlineQueue();
  /** What a pending request may reach of this session (created once, not per request). */
  readonly #host: RequestHost;
  readonly #handlers = new Map<string, HandlerEntry>();
  readonly #notificationHandlers = new Map<string, (params: Record<string, unknown>) => void>();
  readonly #inflight = new Map<string, InflightRequest>();
  readonly #closeListeners = new Set<(error: McpError) => void>();
  #nextId = 1;
  #extendingPending = 0;
  /** Counts extending host requests that finished on this connection. */
  #hostActivity = 0;
  #closeError: McpError | undefined;
  #started = false;

  constructor(transport: Transport, options: RpcSessionOptions) {
    this.server = options.server;
    this.transport = transport;
    this.headers = transport.exchangePerMessage === true ? new MessageHeaders() : undefined;
    this.#inboundLimit = options.inboundLimit ?? MCP_LIMITS.inboundRequestQueue;
    this.#onDiagnostic = options.onDiagnostic ?? (() => {});
    this.#host = {
      server: this.server,
      release: (request) => {
        if (this.#pending.get(request.id) === request) this.#pending.delete(request.id);
        this.#deadlines.settle(request);
      },
      abandon: (request, reason) => {
        this.#forget(request.id);
        request.exchange?.abort(reason);
        // Modern HTTP: ending the request's exchange IS the cancel signal (no notification).
        if (request.options.cancellable !== false && this.headers?.modern !== true) {
          this.#sendQuietly({
            jsonrpc: '2.0',
            method: 'notifications/cancelled',
            params: { requestId: request.id, reason },
          });
        }
      },
      extend: (request, ms) => this.#deadlines.add(request, ms),
      cancelled: (what, signal) => this.#cancelled(what, signal),
      hostPending: () => this.#extendingPending,
      hostFinished: () => this.#hostActivity,
    };
    transport.onmessage = (message, frameBytes) => this.#onMessage(message, frameBytes);
    transport.onerror = (error) => this.#onDiagnostic(error.message);
    transport.onclose = (error) => {
      const detail =
        error === undefined ? '' : `: ${withoutServerName(this.server, error.message)}`;
      this.#shutdown(
        new McpError(
          McpErrorCode.MCP_CONNECTION_CLOSED,
          `MCP server ${JSON.stringify(this.server)} closed the connection${detail}`,
          { server: this.server, cause: error },
        ),
      );
    };
  }

  get closed(): boolean {
    return this.#closeError !== undefined;
  }

  /** Why the session ended, once it has. */
  get closeError(): McpError | undefined {
    return this.#closeError;
  }

  /** Server requests in flight that extend tools/call deadlines. */
  get pendingHostRequests(): number {
    return this.#extendingPending;
  }

  /** Server requests in flight (all kinds). */
  get pendingServerRequests(): number {
    return this.#inflight.size;
  }

  async start(): Promise<void> {
    if (this.#started) return;
    this.#started = true;
    await this.transport.start();
  }

  setRequestHandler(
    method: string,
    handler: ServerRequestHandler,
    options: ServerRequestHandlerOptions = {},
  ): void {
    this.#handlers.set(method, { handler, extendsDeadline: options.extendsDeadline === true });
  }

  setNotificationHandler(method: string, handler: (params: Record<string, unknown>) => void): void {
    this.#notificationHandlers.set(method, handler);
  }

  /** Called once when the session ends, with the reason. */
  onClose(listener: (error: McpError) => void): () => void {
    if (this.#closeError !== undefined) {
      listener(this.#closeError);
      return () => {};
    }
    this.#closeListeners.add(listener);
    return () => this.#closeListeners.delete(listener);
  }

  /** Sends a request and waits for its response, its deadline or cancellation, whichever is first. */
  request(
    method: string,
    params: Record<string, unknown> | undefined,
    options: RequestOptions,
  ): Promise<Record<string, unknown>> {
    return this.#start(method, params, options, false) as Promise<Record<string, unknown>>;
  }

  /** {@link request}, also returning the result's size as received when the transport knows it. */
  requestSized(
    method: string,
    params: Record<string, unknown> | undefined,
    options: RequestOptions,
  ): Promise<SizedResult> {
    return this.#start(method, params, options, true) as Promise<SizedResult>;
  }

  #start(
    method: string,
    params: Record<string, unknown> | undefined,
    options: RequestOptions,
    sized: boolean,
  ): Promise<Record<string, unknown> | SizedResult> {
    if (this.#closeError !== undefined) return Promise.reject(this.#closeError);
    const signal = options.signal;
    if (signal?.aborted) return Promise.reject(this.#cancelled(options.what ?? method, signal));
    const id = this.#nextId++;
    return new Promise((resolve, reject) => {
      const request = new PendingRequest(this.#host, id, method, options, sized, resolve, reject);
      this.#pending.set(id, request);
      this.#deadlines.add(request, options.timeoutMs);
      // Kernel fan-out: thousands of concurrent calls share one run signal.
      if (signal !== undefined) request.detachAbort = kernelOnAbort(signal, () => request.abort());
      const message: JsonRpcRequest =
        params === undefined
          ? { jsonrpc: '2.0', id, method }
          : { jsonrpc: '2.0', id, method, params };
      const headers = this.headers;
      let sent: Promise<void>;
      if (headers === undefined) sent = this.transport.send(message);
      else {
        const exchange = new AbortController();
        request.exchange = exchange;
        sent = this.transport.send(message, {
          headers: headers.request(method, params),
          signal: exchange.signal,
        });
      }
      sent.catch((error: unknown) => {
        if (this.#pending.get(id) !== request) return;
        request.fail(
          this.#closeError ??
            new McpError(
              McpErrorCode.MCP_SEND_FAILED,
              `could not send ${request.what} to MCP server ${JSON.stringify(this.server)}: ${errorMessage(error)}`,
              { server: this.server, cause: error },
            ),
        );
      });
    });
  }

  /** Sends a notification; resolves once the transport accepted it. */
  async notify(method: string, params?: Record<string, unknown>): Promise<void> {
    if (this.#closeError !== undefined) throw this.#closeError;
    await this.transport.send(
      params === undefined ? { jsonrpc: '2.0', method } : { jsonrpc: '2.0', method, params },
      this.headers?.commonOptions,
    );
  }

  /**
   * Aborts the server requests that extend deadlines (host work done on behalf of tools/call);
   * each still gets an error response.
   */
  abortHostRequests(reason: string): void {
    for (const inflight of this.#inflight.values()) {
      if (inflight.extendsDeadline) inflight.controller.abort(reason);
    }
  }

  /** Ends the session: fails pending requests, aborts handlers, closes the transport. Idempotent. */
  async close(): Promise<void> {
    this.#shutdown(
      new McpError(
        McpErrorCode.MCP_CLIENT_CLOSED,
        `MCP session with ${JSON.stringify(this.server)} is shutting down`,
        { server: this.server },
      ),
    );
    await this.transport.close();
  }

  #cancelled(what: string, signal: AbortSignal | undefined): McpError {
    const reason = signal?.reason;
    const detail = typeof reason === 'string' ? `: ${reason}` : '';
    return new McpError(McpErrorCode.MCP_CANCELLED, `${what} was cancelled${detail}`, {
      server: this.server,
      cause: reason,
    });
  }

  #forget(key: number): void {
    this.#forgotten.add(key);
    if (this.#forgotten.size > FORGOTTEN_IDS_KEPT) {
      const oldest = this.#forgotten.values().next().value;
      if (oldest !== undefined) this.#forgotten.delete(oldest);
    }
  }

  #sendQuietly(message: JsonRpcMessage): void {
    if (this.#closeError !== undefined) return;
    this.transport.send(message, this.headers?.commonOptions).catch((error: unknown) => {
      this.#onDiagnostic(`could not send ${describe(message)}: ${errorMessage(error)}`);
    });
  }

  #shutdown(error: McpError): void {
    if (this.#closeError !== undefined) return;
    this.#closeError = error;
    const pending = [...this.#pending.values()];
    this.#pending.clear();
    this.#deadlines.close();
    for (const request of pending) request.fail(error);
    for (const inflight of this.#inflight.values()) inflight.controller.abort(error.message);
    this.#inflight.clear();
    const listeners = [...this.#closeListeners];
    this.#closeListeners.clear();
    for (const listener of listeners) {
      try {
        listener(error);
      } catch (listenerError) {
        this.#onDiagnostic(`close listener failed: ${errorMessage(listenerError)}`);
      }
    }
  }

  #onMessage(message: JsonRpcMessage, frameBytes: number | undefined): void {
    if (this.#closeError !== undefined) return;
    if (isRequest(message)) {
      this.#onRequest(message);
      return;
    }
    if (isNotification(message)) {
      this.#onNotification(message.method, message.params ?? {});
      return;
    }
    const id = message.id;
    if (id === null) {
      const error = isFailure(message) ? message.error : undefined;
      this.#onDiagnostic(
        `MCP server sent an error without a request id: ${error === undefined ? 'unknown' : `${error.code} ${error.message}`}`,
      );
      return;
    }
    // Our ids are numbers; a server that echoes one as a string ("7") still finds its request.
    const key = typeof id === 'number' ? id : Number(id);
    const request =
      typeof id === 'number' || String(key) === id ? this.#pending.get(key) : undefined;
    if (request === undefined) {
      if (!this.#forgotten.delete(key)) {
        this.#onDiagnostic(
          `MCP server sent a response for unknown request id ${JSON.stringify(id)}`,
        );
      }
      return;
    }
    if (isFailure(message)) {
      const { code, message: text, data } = message.error;
      request.fail(
        new McpError(
          McpErrorCode.MCP_REMOTE_ERROR,
          `MCP server ${JSON.stringify(this.server)} answered ${request.method} with error ${code}: ${text}`,
          { server: this.server, rpcCode: code, rpcData: data },
        ),
      );
      return;
    }
    request.complete(
      message.result,
      frameBytes === undefined
        ? undefined
        : Math.max(0, frameBytes - SUCCESS_ENVELOPE_BYTES - JSON.stringify(id).length),
    );
  }

  #onNotification(method: string, params: Record<string, unknown>): void {
    if (method === 'notifications/cancelled') {
      const requestId = params.requestId;
      if (typeof requestId === 'string' || typeof requestId === 'number') {
        const inflight = this.#inflight.get(String(requestId));
        if (inflight !== undefined) {
          inflight.withdrawn = true;
          inflight.controller.abort('the MCP server cancelled the request');
        }
      }
      return;
    }
    const handler = this.#notificationHandlers.get(method);
    if (handler === undefined) return;
    try {
      handler(params);
    } catch (error) {
      this.#onDiagnostic(`handler of ${method} failed: ${errorMessage(error)}`);
    }
  }

  #onRequest(request: JsonRpcRequest): void {
    const { id, method } = request;
    const key = String(id);
    if (method === 'ping') {
      this.#reply(id, { result: {} });
      return;
    }
    const entry = this.#handlers.get(method);
    if (entry === undefined) {
      this.#reply(id, {
        error: {
          code: JsonRpcErrorCode.METHOD_NOT_FOUND,
          message: `CLAT does not implement server request ${JSON.stringify(method)}`,
        },
      });
      return;
    }
    if (this.#inflight.size >= this.#inboundLimit || this.#inflight.has(key)) {
      const reason = this.#inflight.has(key)
        ? `request id ${JSON.stringify(id)} is already in flight`
        : `${this.#inflight.size} server requests are already pending (inbound queue full)`;
      this.#onDiagnostic(`rejected server request ${method}: ${reason}`);
      this.#reply(id, {
        error: {
          code: JsonRpcErrorCode.SERVER_ERROR,
          message: `CLAT rejected ${method}: ${reason}`,
        },
      });
      return;
    }
    const controller = new AbortController();
    const inflight: InflightRequest = {
      controller,
      extendsDeadline: entry.extendsDeadline,
      withdrawn: false,
    };
    this.#inflight.set(key, inflight);
    if (entry.extendsDeadline) this.#extendingPending++;
    const finish = () => {
      if (this.#inflight.get(key) === inflight) this.#inflight.delete(key);
      if (entry.extendsDeadline) {
        this.#extendingPending--;
        this.#hostActivity++;
      }
    };
    Promise.resolve()
      .then(() => entry.handler(request.params ?? {}, { id, method, signal: controller.signal }))
      .then(
        (result) => {
          finish();
          // A withdrawn request gets no response (the server stopped waiting).
          if (!inflight.withdrawn) this.#reply(id, { result });
        },
        (error: unknown) => {
          finish();
          if (inflight.withdrawn) return;
          const reason = controller.signal.reason;
          this.#reply(id, {
            error: controller.signal.aborted
              ? {
                  code: JsonRpcErrorCode.SERVER_ERROR,
                  message: `CLAT stopped serving ${method}: ${typeof reason === 'string' ? reason : errorMessage(error)}`,
                }
              : toRpcErrorObject(error, method),
          });
        },
      );
  }

  #reply(
    id: JsonRpcId,
    body:
      | { result: Record<string, unknown> }
      | { error: { code: number; message: string; data?: unknown } },
  ): void {
    this.#sendQuietly({ jsonrpc: '2.0', id, ...body } as JsonRpcMessage);
  }
}

function describe(message: JsonRpcMessage): string {
  if ('method' in message) return message.method;
  return `response ${JSON.stringify(message.id)}`;
}

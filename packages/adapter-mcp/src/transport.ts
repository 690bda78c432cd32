/**
 * JSON-RPC 2.0 messages and the Transport port every MCP transport implements. The MCP client
 * core speaks only to this port, so stdio and Streamable HTTP adapters never depend on it or on
 * each other.
 * @module
 */
import { isJsonObject, type MountProgress } from '@clat/kernel';
import { findInCauses } from './errors.js';

export type JsonRpcId = string | number;

export interface JsonRpcRequest {
  jsonrpc: '2.0';
  id: JsonRpcId;
  method: string;
  params?: Record<string, unknown>;
}

export interface JsonRpcNotification {
  jsonrpc: '2.0';
  method: string;
  params?: Record<string, unknown>;
}

export interface JsonRpcErrorObject {
  code: number;
  message: string;
  data?: unknown;
}

export interface JsonRpcSuccess {
  jsonrpc: '2.0';
  id: JsonRpcId;
  result: Record<string, unknown>;
}

export interface JsonRpcFailure {
  jsonrpc: '2.0';
  id: JsonRpcId | null;
  error: JsonRpcErrorObject;
}

export type JsonRpcResponse = JsonRpcSuccess | JsonRpcFailure;
export type JsonRpcMessage = JsonRpcRequest | JsonRpcNotification | JsonRpcResponse;

export const JsonRpcErrorCode = {
  PARSE_ERROR: -32700,
  INVALID_REQUEST: -32600,
  METHOD_NOT_FOUND: -32601,
  INVALID_PARAMS: -32602,
  INTERNAL_ERROR: -32603,
  /** Implementation-defined server error; CLAT host-service state errors use it. */
  SERVER_ERROR: -32000,
  /** MCP 2026-07-28. */
  HEADER_MISMATCH: -32020,
  MISSING_REQUIRED_CLIENT_CAPABILITY: -32021,
  UNSUPPORTED_PROTOCOL_VERSION: -32022,
} as const;

export function isRequest(message: JsonRpcMessage): message is JsonRpcRequest {
  return 'method' in message && 'id' in message && message.id !== undefined;
}

export function isNotification(message: JsonRpcMessage): message is JsonRpcNotification {
  return 'method' in message && !('id' in message && message.id !== undefined);
}

export function isResponse(message: JsonRpcMessage): message is JsonRpcResponse {
  return !('method' in message);
}

export function isFailure(message: JsonRpcResponse): message is JsonRpcFailure {
  return 'error' in message;
}

/**
 * Classifies one decoded JSON value as a JSON-RPC message, or returns a reason it is not one.
 * Used by every transport on inbound frames.
 */
export function parseJsonRpcMessage(value: unknown): JsonRpcMessage | { invalid: string } {
  if (!isJsonObject(value)) return { invalid: 'frame is not a JSON object' };
  if (value.jsonrpc !== '2.0') return { invalid: 'frame is missing "jsonrpc": "2.0"' };
  const id = value.id;
  const idOk = typeof id === 'string' || (typeof id === 'number' && Number.isFinite(id));
  if ('method' in value) {
    if (typeof value.method !== 'string' || value.method === '') {
      return { invalid: '"method" must be a non-empty string' };
    }
    if (value.params !== undefined && !isJsonObject(value.params)) {
      return { invalid: `params of ${value.method} must be an object` };
    }
    if (id === undefined) return value as unknown as JsonRpcNotification;
    if (!idOk) return { invalid: `id of ${value.method} must be a string or number` };
    return value as unknown as JsonRpcRequest;
  }
  if ('result' in value) {
    if (!idOk) return { invalid: 'response id must be a string or number' };
    if (!isJsonObject(value.result)) return { invalid: 'response "result" must be an object' };
    return value as unknown as JsonRpcSuccess;
  }
  if ('error' in value) {
    const error = value.error;
    if (
      !isJsonObject(error) ||
      typeof error.code !== 'number' ||
      typeof error.message !== 'string'
    ) {
      return { invalid: 'response "error" must have a numeric code and a string message' };
    }
    if (!idOk && id !== null)
      return { invalid: 'error response id must be a string, number or null' };
    return value as unknown as JsonRpcFailure;
  }
  return { invalid: 'frame is neither a request, a notification nor a response' };
}

export interface TransportDiagnostics {
  /** Redacted stderr tail (stdio) or recent HTTP failures, newest last. */
  tail: string[];
  /** Process id, endpoint origin… safe to show. */
  detail?: Record<string, string | number>;
  /**
   * What may explain a server that did not answer the handshake in time, and how to fix it: set
   * by a transport that knows its launcher (stdio: `npx` still installing the package).
   */
  slowStartHint?: string;
}

/** `sse`: the HTTP+SSE transport of 2024-11-05 (a GET stream, messages POSTed to its endpoint). */
export type TransportKind = 'stdio' | 'http' | 'sse' | (string & {});

/**
 * The standalone server stream of a transport that has one (Streamable HTTP GET): `none` when not
 * opened or the server offers none, `opening` while a GET is on its way, `open`, or `closed`.
 */
export type GetStreamState = NonNullable<MountProgress['getStream']>;

/**
 * What the client passes with one message to a transport that sets `exchangePerMessage`.
 * Transports without it are called with no options at all.
 */
export interface TransportSendOptions {
  /**
   * Protocol headers the client computed for this message (`MCP-Protocol-Version`, `Mcp-Method`,
   * `Mcp-Name`, `Mcp-Param-*`), names in lower case. The transport sends exactly these next to its
   * own (auth, session, content negotiation) and derives none of them itself.
   */
  readonly headers?: Readonly<Record<string, string>> | undefined;
  /** Aborts when the caller of this request gave up (cancelled, timed out): end its exchange. */
  readonly signal?: AbortSignal | undefined;
}

/**
 * True when `error` (or one of its causes) is a transport's report that the server no longer
 * knows the session a message carried (`sessionExpired: true` on the error). Such a transport has
 * dropped the session and stays open: the client starts a new one with `initialize` and may send
 * the request again, since the server never ran it (legacy Streamable HTTP, mcp-protocol.md §4.7).
 */
export function isSessionExpired(error: unknown): boolean {
  return (
    findInCauses(error, (node) =>
      (node as { sessionExpired?: unknown }).sessionExpired === true ? true : undefined,
    ) === true
  );
}

/**
 * A connected JSON-RPC channel that moves bytes only: it never reads or rewrites results. `start`
 * resolves once messages can flow; `send` resolves once the frame was accepted (queued for stdio,
 * POSTed for HTTP); `close` is idempotent and tears down everything the transport owns
 * (processes, sockets).
 */
export interface Transport {
  readonly kind: TransportKind;
  /**
   * True where every message is its own exchange (Streamable HTTP): the client then passes each
   * message's protocol headers and each request a signal ({@link TransportSendOptions}). Others
   * (stdio) get no options, so their per-call path computes and allocates nothing for them.
   */
  readonly exchangePerMessage?: boolean | undefined;
  start(): Promise<void>;
  /**
   * Sends one message. A transport with sessions rejects a message whose server forgot the
   * session with an error {@link isSessionExpired} recognizes, and stays open without it.
   */
  send(message: JsonRpcMessage, options?: TransportSendOptions): Promise<void>;
  close(): Promise<void>;
  /**
   * One inbound message. `frameBytes` is the byte length of the frame it arrived in, when the
   * transport knows it (a stdio line): the client sizes results from it instead of serialising
   * them again.
   */
  onmessage?: ((message: JsonRpcMessage, frameBytes?: number) => void) | undefined;
  /** Non-fatal problems (an unparsable frame, an unknown response id). */
  onerror?: ((error: Error) => void) | undefined;
  /** Called once when the channel ends; `error` explains an unexpected end. */
  onclose?: ((error?: Error) => void) | undefined;
  diagnostics(): TransportDiagnostics;
  /** Transports with a standalone server stream report its state (absent: no such stream). */
  getStreamState?(): GetStreamState;
  /** Called by such transports each time {@link Transport.getStreamState} changes. */
  ongetstreamstate?: ((state: GetStreamState) => void) | undefined;
}

/**
 * Opens transports for one configured server. `probeIsolation: 'fresh'` means a transport that
 * saw a failed modern probe must be discarded and a new one opened for the legacy handshake
 * (stdio: a new subprocess). HTTP is `'shared'`: each POST stands alone.
 */
export interface TransportFactory {
  readonly kind: TransportKind;
  readonly probeIsolation: 'fresh' | 'shared';
  /**
   * True for a transport only the legacy era speaks (HTTP+SSE of 2024-11-05): the client skips
   * the modern probe and starts with `initialize`.
   */
  readonly legacyOnly?: boolean | undefined;
  open(): Transport;
  /**
   * The factory of an older transport to the same server, when `error` (this factory's legacy
   * `initialize` failing) says the server may speak only that one; else undefined. Streamable
   * HTTP answers HTTP+SSE for a 400, 404 or 405 (the spec's backwards compatibility).
   */
  fallback?(error: unknown): TransportFactory | undefined;
}

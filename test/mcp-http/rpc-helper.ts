/**
 * A minimal JSON-RPC caller over a bare Transport, so transport tests do not depend on the client
 * (no handshake logic, no result reading): requests get ids, responses are matched, everything
 * else is collected. Like the client it passes the per-message headers of the core's
 * MessageHeaders: modern ones for a request whose `_meta` names a protocol version, else the
 * legacy version an initialize answer named.
 * @module
 */
import {
  type JsonRpcMessage,
  type JsonRpcResponse,
  MessageHeaders,
  type Transport,
  type TransportSendOptions,
} from '@clat/adapter-mcp';

export interface RawPeer {
  /** `signal` is passed to the transport (HTTP aborts the request's POST with it). */
  request(
    method: string,
    params?: Record<string, unknown>,
    signal?: AbortSignal,
  ): Promise<JsonRpcResponse>;
  notify(method: string, params?: Record<string, unknown>): Promise<void>;
  /** Every message the server sent that was not a response to our requests. */
  inbound: JsonRpcMessage[];
  errors: Error[];
  closed: { error?: Error | undefined } | undefined;
  /** Answers server requests; defaults to -32601. */
  onServerRequest?: (message: JsonRpcMessage & { id: string | number; method: string }) => unknown;
  /** The headers this peer passes; tests teach it tool lists (`learnTools`). */
  headers: MessageHeaders;
}

const META_VERSION = 'io.modelcontextprotocol/protocolVersion';

export function rawPeer(transport: Transport): RawPeer {
  let next = 1;
  let legacyVersion: string | undefined;
  const headers = new MessageHeaders();
  const exchange = transport.exchangePerMessage === true;
  const optionsFor = (
    method: string | undefined,
    params: Record<string, unknown> | undefined,
    signal?: AbortSignal,
  ): TransportSendOptions | undefined => {
    if (!exchange) return signal === undefined ? undefined : { signal };
    const meta = params?._meta as Record<string, unknown> | undefined;
    const version = meta?.[META_VERSION];
    if (typeof version === 'string') headers.useModern(version);
    else headers.useLegacy(legacyVersion);
    if (method === undefined) return headers.commonOptions;
    return { headers: headers.request(method, params), signal };
  };
  const pending = new Map<string | number, (response: JsonRpcResponse) => void>();
  const peer: RawPeer = {
    inbound: [],
    errors: [],
    closed: undefined,
    headers,
    async request(method, params, signal) {
      const id = next++;
      const answer = new Promise<JsonRpcResponse>((resolve) => pending.set(id, resolve));
      await transport.send(
        { jsonrpc: '2.0', id, method, ...(params ? { params } : {}) },
        optionsFor(method, params, signal),
      );
      const response = await answer;
      const version = 'result' in response ? response.result.protocolVersion : undefined;
      if (method === 'initialize' && typeof version === 'string') legacyVersion = version;
      return response;
    },
    async notify(method, params) {
      await transport.send(
        { jsonrpc: '2.0', method, ...(params ? { params } : {}) },
        optionsFor(undefined, params),
      );
    },
  };
  transport.onmessage = (message) => {
    if (!('method' in message) && message.id !== null && pending.has(message.id)) {
      pending.get(message.id)?.(message);
      pending.delete(message.id);
      return;
    }
    peer.inbound.push(message);
    if ('method' in message && 'id' in message && message.id !== undefined) {
      const request = message as JsonRpcMessage & { id: string | number; method: string };
      const result = peer.onServerRequest?.(request);
      const reply: JsonRpcMessage =
        result === undefined
          ? { jsonrpc: '2.0', id: request.id, error: { code: -32601, message: 'not supported' } }
          : { jsonrpc: '2.0', id: request.id, result: result as Record<string, unknown> };
      transport
        .send(reply, optionsFor(undefined, undefined))
        .catch((error: Error) => peer.errors.push(error));
    }
  };
  transport.onerror = (error) => peer.errors.push(error);
  transport.onclose = (error) => {
    peer.closed = { error };
  };
  return peer;
}

export const MODERN = '2026-07-28';

export function modernMeta(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    'io.modelcontextprotocol/protocolVersion': MODERN,
    'io.modelcontextprotocol/clientCapabilities': {},
    'io.modelcontextprotocol/clientInfo': { name: 'clat-test', version: '0.0.0' },
    ...extra,
  };
}

export const LEGACY_INIT = {
  protocolVersion: '2025-11-25',
  capabilities: { elicitation: { form: {} }, sampling: {} },
  clientInfo: { name: 'clat-test', version: '0.0.0' },
};

/**
 * A minimal JSON-RPC caller over a bare Transport, so transport tests do not depend on the client
 * core: requests get ids, responses are matched, everything else is collected.
 * @module
 */
import type { JsonRpcMessage, JsonRpcResponse, Transport } from '@clat/adapter-mcp';

export interface RawPeer {
  request(method: string, params?: Record<string, unknown>): Promise<JsonRpcResponse>;
  notify(method: string, params?: Record<string, unknown>): Promise<void>;
  /** Every message the server sent that was not a response to our requests. */
  inbound: JsonRpcMessage[];
  errors: Error[];
  closed: { error?: Error | undefined } | undefined;
  /** Answers server requests; defaults to -32601. */
  onServerRequest?: (message: JsonRpcMessage & { id: string | number; method: string }) => unknown;
}

export function rawPeer(transport: Transport): RawPeer {
  let next = 1;
  const pending = new Map<string | number, (response: JsonRpcResponse) => void>();
  const peer: RawPeer = {
    inbound: [],
    errors: [],
    closed: undefined,
    async request(method, params) {
      const id = next++;
      const answer = new Promise<JsonRpcResponse>((resolve) => pending.set(id, resolve));
      await transport.send({ jsonrpc: '2.0', id, method, ...(params ? { params } : {}) });
      return answer;
    },
    async notify(method, params) {
      await transport.send({ jsonrpc: '2.0', method, ...(params ? { params } : {}) });
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
      transport.send(reply).catch((error: Error) => peer.errors.push(error));
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

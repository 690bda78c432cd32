/**
 * The TransportFactory of an HTTP+SSE (2024-11-05) server: an entry with `"type": "sse"`, or the
 * fallback of a Streamable HTTP entry.
 * @module
 */
import type { TransportFactory } from '@clat/adapter-mcp';
import { validateHttpOptions } from './http-options.js';
import { SseTransport, type SseTransportOptions } from './sse-transport.js';

/**
 * Opens {@link SseTransport}s for one server. `legacyOnly`: the transport predates the modern era,
 * so the client starts with `initialize` and never probes. Each transport is its own session.
 */
export class SseTransportFactory implements TransportFactory {
  readonly kind = 'sse';
  readonly probeIsolation = 'fresh';
  readonly legacyOnly = true;
  /** The stream's origin, safe to show. */
  readonly origin: string;
  readonly #options: SseTransportOptions;

  /** Validates the URL and headers now, so a bad entry fails at mount with a clear message. */
  constructor(options: SseTransportOptions) {
    this.origin = validateHttpOptions(options).origin;
    this.#options = { ...options, headers: { ...options.headers } };
  }

  open(): SseTransport {
    return new SseTransport(this.#options);
  }

  /** Never shows header values. */
  toJSON(): Record<string, unknown> {
    return { kind: this.kind, origin: this.origin };
  }
}

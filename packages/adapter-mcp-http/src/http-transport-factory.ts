/**
 * The TransportFactory of one configured HTTP server.
 * @module
 */
import { findInCauses, type HttpServerConfig, type TransportFactory } from '@clat/adapter-mcp';
import { isHttpTransportError } from './errors.js';
import { type HttpTransportOptions, validateHttpOptions } from './http-options.js';
import { HttpTransport } from './http-transport.js';
import { SseTransportFactory } from './sse-transport-factory.js';

/**
 * Statuses of a refused `initialize` POST after which the server may speak HTTP+SSE only
 * (mcp-protocol.md §1, the spec's backwards compatibility): no POST route (404), the wrong
 * method (405), or a request it cannot read (400). Never 401/403 (a login) or 5xx (an outage).
 */
const SSE_FALLBACK_STATUSES: ReadonlySet<number> = new Set([400, 404, 405]);

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
    this.origin = validateHttpOptions(options).origin;
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

  /**
   * HTTP+SSE at the same URL when the legacy `initialize` POST got a bare 400, 404 or 405 (no
   * JSON-RPC answer in the body: a server that speaks Streamable HTTP would have sent one).
   */
  fallback(error: unknown): SseTransportFactory | undefined {
    const status = findInCauses(error, (node) =>
      isHttpTransportError(node) && node.code === 'HTTP_STATUS' ? node.status : undefined,
    );
    if (status === undefined || !SSE_FALLBACK_STATUSES.has(status)) return undefined;
    const { closeTimeoutMs: _unused, ...options } = this.#options;
    return new SseTransportFactory(options);
  }

  /** Never shows header values. */
  toJSON(): Record<string, unknown> {
    return { kind: this.kind, origin: this.origin };
  }
}

/**
 * The TransportFactory of one configured HTTP server.
 * @module
 */
import type { HttpServerConfig, TransportFactory } from '@clat/adapter-mcp';
import { type HttpTransportOptions, validateHttpOptions } from './http-options.js';
import { HttpTransport } from './http-transport.js';

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

  /** Never shows header values. */
  toJSON(): Record<string, unknown> {
    return { kind: this.kind, origin: this.origin };
  }
}

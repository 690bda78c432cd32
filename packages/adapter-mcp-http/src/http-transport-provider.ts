/**
 * `httpTransport()`: the Streamable HTTP transport as a provider for the MCP connector of
 * `@clat/adapter-mcp` (`createMcpConnector({ transports: [httpTransport()] })`).
 * @module
 */
import type { McpServerConfig } from '@clat/kernel';
import { HttpTransportError, HttpTransportErrorCode } from './errors.js';
import { HttpTransportFactory } from './http-transport.js';

export interface HttpTransportProviderOptions {
  /** Replaces the global fetch (tests only). */
  fetch?: typeof fetch;
}

/** What `createMcpConnector` takes for entries with `"transport": "http"`. */
export interface HttpTransportProvider {
  readonly transport: 'http';
  describe(server: McpServerConfig): { target: string; secrets: readonly string[] };
  factory(server: McpServerConfig): HttpTransportFactory;
}

function http(server: McpServerConfig) {
  if (server.transport !== 'http') {
    throw new HttpTransportError(
      HttpTransportErrorCode.HTTP_CONFIG_INVALID,
      '',
      `server ${JSON.stringify(server.name)} uses the ${server.transport} transport, not http`,
    );
  }
  return server;
}

/** Origin and path of `url`, never its query (which may carry a key). */
function shownTarget(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.origin}${parsed.pathname}`;
  } catch {
    return url;
  }
}

/** The Streamable HTTP transport provider; every configured header value is a secret. */
export function httpTransport(options: HttpTransportProviderOptions = {}): HttpTransportProvider {
  return {
    transport: 'http',
    describe(server) {
      const entry = http(server);
      return { target: shownTarget(entry.url), secrets: Object.values(entry.headers ?? {}) };
    },
    factory(server) {
      const entry = http(server);
      return new HttpTransportFactory({
        url: entry.url,
        ...(entry.headers === undefined ? {} : { headers: entry.headers }),
        ...(options.fetch === undefined ? {} : { fetch: options.fetch }),
      });
    },
  };
}

/**
 * `httpTransport()`: the Streamable HTTP transport as a provider for the MCP connector of
 * `@clat/adapter-mcp` (`createMcpConnector({ transports: [httpTransport()] })`).
 * @module
 */

import type { McpServerConfig } from '@clat/adapter-mcp';
import { shownUrl } from '@clat/kernel';
import { HttpTransportError, HttpTransportErrorCode } from './errors.js';
import type { HttpAuth } from './http-auth.js';
import { HttpTransportFactory } from './http-transport-factory.js';
import { SseTransportFactory } from './sse-transport-factory.js';

/** An mcp.json entry with `"transport": "http"` (`"type": "sse"` picks HTTP+SSE). */
export type HttpServerEntry = Extract<McpServerConfig, { transport: 'http' }>;

/** Credentials of one entry; `loginRequired` says a person must log in before it connects. */
export type HttpEntryAuth = HttpAuth & {
  readonly loginRequired?: boolean;
  /** Why a stored login stopped working in this process (its refresh was refused). */
  readonly loginLost?: string | undefined;
};

export interface HttpTransportProviderOptions {
  /** Replaces the global fetch (tests only). */
  fetch?: typeof fetch;
  /** The credentials of an entry (e.g. its OAuth client), or none. */
  auth?: (server: HttpServerEntry) => HttpEntryAuth | undefined;
}

/** What `createMcpConnector` takes for entries with `"transport": "http"`. */
export interface HttpTransportProvider {
  readonly transport: 'http';
  describe(server: McpServerConfig): {
    target: string;
    secrets: readonly string[];
    transport?: 'sse' | undefined;
  };
  /** Streamable HTTP (falling back to HTTP+SSE), or HTTP+SSE for a `"type": "sse"` entry. */
  factory(server: McpServerConfig): HttpTransportFactory | SseTransportFactory;
  /** True when the entry's last connect failed for want of a login (its auth says so). */
  loginRequired(server: McpServerConfig): boolean;
  /** Why the entry's stored login stopped working, when its auth saw it (a refused refresh). */
  loginLost(server: McpServerConfig): string | undefined;
}

function http(server: McpServerConfig): HttpServerEntry {
  if (server.transport !== 'http') {
    throw new HttpTransportError(
      HttpTransportErrorCode.HTTP_CONFIG_INVALID,
      '',
      `server ${JSON.stringify(server.name)} uses the ${server.transport} transport, not http`,
    );
  }
  return server;
}

/** The Streamable HTTP transport provider; every configured header value is a secret. */
export function httpTransport(options: HttpTransportProviderOptions = {}): HttpTransportProvider {
  // The auth each entry's factory got, so a failed mount can ask whether it needs a login.
  const auths = new WeakMap<McpServerConfig, HttpEntryAuth>();
  return {
    transport: 'http',
    describe(server) {
      const entry = http(server);
      const secrets = Object.values(entry.headers ?? {});
      if (entry.oauth?.clientSecret !== undefined) secrets.push(entry.oauth.clientSecret);
      // Origin and path only, a token-like segment as `…` (README "What CLAT shows of a URL").
      const target = shownUrl(entry.url);
      return entry.type === 'sse' ? { target, secrets, transport: 'sse' } : { target, secrets };
    },
    factory(server) {
      const entry = http(server);
      const auth = options.auth?.(entry);
      if (auth !== undefined) auths.set(server, auth);
      const transportOptions = {
        url: entry.url,
        ...(entry.headers === undefined ? {} : { headers: entry.headers }),
        ...(options.fetch === undefined ? {} : { fetch: options.fetch }),
        ...(auth === undefined ? {} : { auth }),
      };
      return entry.type === 'sse'
        ? new SseTransportFactory(transportOptions)
        : new HttpTransportFactory(transportOptions);
    },
    loginRequired(server) {
      return auths.get(server)?.loginRequired === true;
    },
    loginLost(server) {
      return auths.get(server)?.loginLost;
    },
  };
}

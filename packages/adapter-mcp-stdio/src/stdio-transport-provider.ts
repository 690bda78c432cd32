/**
 * `stdioTransport()`: the stdio transport as a provider for the MCP connector of
 * `@clat/adapter-mcp` (`createMcpConnector({ transports: [stdioTransport(...)] })`).
 * @module
 */

import type { McpServerConfig } from '@clat/adapter-mcp';
import { type Redactor, redactArgs } from '@clat/kernel';
import { StdioTransportError, StdioTransportErrorCode } from './errors.js';
import type { PrestartedServers } from './prestart.js';
import { StdioTransportFactory } from './stdio-transport-factory.js';

export interface StdioTransportProviderOptions {
  /** Working directory of servers without `cwd`, and base of a relative `cwd`. */
  defaultCwd: string;
  /** Grace before each teardown escalation (default: the kernel limit). */
  shutdownGraceMs?: number;
  /**
   * Servers spawned ahead of the connector (see {@link PrestartedServers}): a server's first
   * transport adopts its process when the launch matches exactly. The caller closes the set.
   */
  prestarted?: PrestartedServers | undefined;
}

/** What `createMcpConnector` takes for entries with `"transport": "stdio"`. */
export interface StdioTransportProvider {
  readonly transport: 'stdio';
  describe(server: McpServerConfig): { target: string; secrets: readonly string[] };
  factory(server: McpServerConfig, context: { redactor: Redactor }): StdioTransportFactory;
}

function stdio(server: McpServerConfig) {
  if (server.transport !== 'stdio') {
    throw new StdioTransportError(
      StdioTransportErrorCode.STDIO_SPAWN_FAILED,
      `server ${JSON.stringify(server.name)} uses the ${server.transport} transport, not stdio`,
    );
  }
  return server;
}

/** Variables the package store sets on installed servers; none of them holds a secret. */
const STORE_SET_ENV = new Set([
  'CLAT_PLUGIN_ID',
  'CLAT_PLUGIN_NAME',
  'CLAT_PLUGIN_VERSION',
  'CLAT_PLUGIN_TREE_SHA256',
  'CLAT_PLUGIN_TRUST',
  'CLAT_PLUGIN_DATA',
  'CLAT_PLUGIN_PUBLISHER',
]);

/** The stdio transport provider: each entry's server runs as a subprocess in its own group. */
export function stdioTransport(options: StdioTransportProviderOptions): StdioTransportProvider {
  return {
    transport: 'stdio',
    describe(server) {
      const entry = stdio(server);
      // Every configured env value is a secret, whatever its name, except the identity and paths
      // the package store itself sets for an installed server: redacting those would hide the
      // plugin's own name, version and artifact path from every diagnostic.
      const secrets = Object.entries(entry.env ?? {})
        .filter(([name]) => !STORE_SET_ENV.has(name))
        .map(([, value]) => value);
      return { target: [entry.command, ...redactArgs(entry.args ?? [])].join(' '), secrets };
    },
    factory(server, context) {
      const entry = stdio(server);
      const { prestarted } = options;
      return new StdioTransportFactory(
        {
          name: entry.name,
          command: entry.command,
          args: entry.args,
          env: entry.env,
          cwd: entry.cwd,
          defaultCwd: options.defaultCwd,
          redactor: context.redactor,
          ...(options.shutdownGraceMs === undefined
            ? {}
            : { shutdownGraceMs: options.shutdownGraceMs }),
        },
        prestarted === undefined ? undefined : () => prestarted.claim(entry, options.defaultCwd),
      );
    },
  };
}

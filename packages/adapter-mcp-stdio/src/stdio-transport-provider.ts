/**
 * `stdioTransport()`: the stdio transport as a provider for the MCP connector of
 * `@clat/adapter-mcp` (`createMcpConnector({ transports: [stdioTransport(...)] })`).
 * @module
 */

import type { McpServerConfig } from '@clat/adapter-mcp';
import { type Redactor, redactArgs } from '@clat/kernel';
import { secretEnvValues } from './env-secrets.js';
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
  factory(
    server: McpServerConfig,
    context: { redactor: Redactor; hostName?: string | undefined },
  ): StdioTransportFactory;
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

/** The stdio transport provider: each entry's server runs as a subprocess in its own group. */
export function stdioTransport(options: StdioTransportProviderOptions): StdioTransportProvider {
  return {
    transport: 'stdio',
    describe(server) {
      const entry = stdio(server);
      const secrets = secretEnvValues(entry.env);
      return { target: [entry.command, ...redactArgs(entry.args ?? [])].join(' '), secrets };
    },
    factory(server, context) {
      const entry = stdio(server);
      const hostName = context.hostName ?? 'CLAT';
      const { prestarted } = options;
      return new StdioTransportFactory(
        {
          name: entry.name,
          command: entry.command,
          args: entry.args,
          env: entry.env,
          cwd: entry.cwd,
          defaultCwd: options.defaultCwd,
          // An installed package runs in its verified artifact directory (`@clat/packaging`).
          ...(entry.origin === 'package'
            ? {
                cwdGone: `its installed files are gone: another process updated or uninstalled plugin ${JSON.stringify(entry.name)}; restart ${hostName} to start what is installed now`,
              }
            : {}),
          redactor: context.redactor,
          hostName,
          ...(options.shutdownGraceMs === undefined
            ? {}
            : { shutdownGraceMs: options.shutdownGraceMs }),
        },
        prestarted === undefined ? undefined : () => prestarted.claim(entry, options.defaultCwd),
      );
    },
  };
}

/**
 * The MCP connector: mcp.json entries (`kind: 'mcp'`) mounted through the client core over the
 * transports the composition injects. This package imports no transport: a distribution passes
 * `stdioTransport()` / `httpTransport()` (or its own) in `transports`.
 * @module
 */
import {
  type Connector,
  errorMessage,
  LIMITS,
  type MountContext,
  type MountDescription,
  type MountEntry,
  MountError,
  type MountedPlugin,
  type Redactor,
} from '@clat/kernel';
import { editableOrigin, type McpServerConfig, toolAllowedByEntry } from './config.js';
import { createMcpCatalog } from './mcp-catalog.js';
import { mountMcpServer } from './mount.js';
import { argumentsNamePaths } from './path-arguments.js';
import type { McpClientInfo, McpTimeouts } from './protocol.js';
import type { Transport, TransportFactory } from './transport.js';
import type { UrlOpener } from './url-elicitation.js';

/** The connector kind of mcp.json entries. */
export const MCP_KIND = 'mcp';

/** One transport a distribution wires in: opens connections for entries of its `transport`. */
export interface McpTransportProvider {
  /** The mcp.json `transport` value it serves (`stdio`, `http`). */
  readonly transport: string;
  /**
   * Safe-to-show target and the secret values of one entry; `transport` labels it in status when
   * the entry picks a variant of the provider's transport (`sse` for an HTTP+SSE entry).
   */
  describe(server: McpServerConfig): {
    target: string;
    secrets: readonly string[];
    transport?: string | undefined;
  };
  /**
   * A factory for one entry's connections (probe, then legacy); throws on a bad entry.
   * `hostName`: what its messages call the program to restart (the host's; default `CLAT`).
   */
  factory(
    server: McpServerConfig,
    context: { redactor: Redactor; hostName?: string | undefined },
  ): TransportFactory;
  /** True when the entry's last connect failed only for want of a login (e.g. OAuth). */
  loginRequired?(server: McpServerConfig): boolean;
  /** Why a login that worked no longer does (a refused refresh), when this process saw it. */
  loginLost?(server: McpServerConfig): string | undefined;
}

/** Remembers which configurations spoke the legacy era, so their next start skips the probe. */
export interface McpEraMemory {
  hint(server: McpServerConfig): Promise<'legacy' | undefined>;
  /** Records the negotiated era; `hinted` says whether the connect skipped the probe. */
  record(
    server: McpServerConfig,
    era: string | undefined,
    serverVersion: string | undefined,
    hinted: boolean,
  ): Promise<void>;
}

export interface McpConnectorOptions {
  transports: readonly McpTransportProvider[];
  eras?: McpEraMemory;
  /** Sent in `initialize` / discovery (default: the client core's name). */
  clientInfo?: McpClientInfo;
  timeouts?: Partial<McpTimeouts>;
  /** The command that logs in to an entry; without it a missing login is a plain failure. */
  loginCommand?: (server: McpServerConfig) => string;
  /**
   * What follows the login for this host to use it, said after the command (`then restart
   * clat-gateway`: a host that does not mount again after a login).
   */
  afterLogin?: string;
  /** Opens the URL of a URL-mode elicitation the person accepted (their browser). */
  openUrl?: UrlOpener;
}

/** An mcp.json entry as a host mount entry. */
export function mcpEntry(server: McpServerConfig): MountEntry<McpServerConfig> {
  return { kind: MCP_KIND, name: server.name, origin: server.origin, config: server };
}

/**
 * Remembers the transports it opened, so a server that failed before its client existed still
 * has its (already redacted) stderr tail for status.
 */
class TailKeepingFactory implements TransportFactory {
  readonly kind: TransportFactory['kind'];
  readonly probeIsolation: TransportFactory['probeIsolation'];
  readonly legacyOnly: boolean | undefined;
  readonly #inner: TransportFactory;
  readonly #opened: Transport[];

  constructor(inner: TransportFactory, opened: Transport[] = []) {
    this.#inner = inner;
    this.#opened = opened;
    this.kind = inner.kind;
    this.probeIsolation = inner.probeIsolation;
    this.legacyOnly = inner.legacyOnly;
  }

  open(): Transport {
    const transport = this.#inner.open();
    this.#opened.push(transport);
    return transport;
  }

  /** The inner factory's fallback, keeping the tails of its transports in the same list. */
  fallback(error: unknown): TransportFactory | undefined {
    const older = this.#inner.fallback?.(error);
    return older === undefined ? undefined : new TailKeepingFactory(older, this.#opened);
  }

  /** The stderr tail of every transport opened so far (probe, then legacy), newest last. */
  tail(): string[] {
    const lines: string[] = [];
    for (const transport of this.#opened) {
      try {
        lines.push(...transport.diagnostics().tail);
      } catch {
        // A transport that cannot report diagnostics adds nothing.
      }
    }
    return lines.slice(-LIMITS.stderrTailLines);
  }
}

/** The connector of `kind: 'mcp'` entries over the given transports. */
export function createMcpConnector(options: McpConnectorOptions): Connector<McpServerConfig> {
  const providerOf = (server: McpServerConfig): McpTransportProvider | undefined =>
    options.transports.find((provider) => provider.transport === server.transport);
  return {
    kind: MCP_KIND,
    describe(entry): MountDescription {
      const server = entry.config;
      const provider = providerOf(server);
      const described = provider?.describe(server) ?? { target: '', secrets: [] };
      return {
        transport: described.transport ?? server.transport,
        target: described.target,
        secrets: described.secrets,
      };
    },
    async mount(entry, ctx: MountContext): Promise<MountedPlugin> {
      const server = entry.config;
      const provider = providerOf(server);
      if (provider === undefined) {
        throw new MountError(
          `no connector for the ${server.transport} transport is wired into this build`,
        );
      }
      let factory: TailKeepingFactory;
      try {
        factory = new TailKeepingFactory(
          provider.factory(server, { redactor: ctx.redactor, hostName: ctx.hostName }),
        );
      } catch (error) {
        throw new MountError(errorMessage(error), [], error);
      }
      const eraHint = await options.eras?.hint(server);
      // The status is the kernel's MountProgress already: it goes to the host as it is, and the
      // host redacts it. A frozen registry's error propagates for the host to report.
      const mounted = await mountMcpServer({
        eraHint,
        name: server.name,
        factory,
        registry: ctx.registry,
        prompts: ctx.prompts,
        scope: ctx.scope,
        hostServices: ctx.hostServices,
        projectRoot: ctx.projectRoot,
        openUrl: options.openUrl,
        offerRoots: server.roots !== false,
        pathArguments: server.transport === 'stdio' && argumentsNamePaths(server.args),
        clientInfo: options.clientInfo,
        timeouts: options.timeouts,
        signal: ctx.signal,
        hostName: ctx.hostName,
        toolFilter: (tool) =>
          server.withholdTools === undefined && toolAllowedByEntry(server, tool),
        leftOutBecause: server.withholdTools,
        narrowable: editableOrigin(server.origin),
        onStatus: (status) => ctx.onProgress(status),
      });
      const status = mounted.status();
      if (status.state === 'connected') {
        await options.eras?.record(
          server,
          status.era,
          mounted.client?.serverInfo.version,
          eraHint !== undefined,
        );
      }
      const login =
        status.state !== 'connected' && provider.loginRequired?.(server) === true
          ? options.loginCommand?.(server)
          : undefined;
      if (login !== undefined) {
        const then = options.afterLogin === undefined ? '' : `, ${options.afterLogin}`;
        const lost = provider.loginLost?.(server);
        const why = lost === undefined ? '' : ` (${lost})`;
        throw new MountError(`needs login${why}: run \`${login}\`${then}`, [], undefined, login);
      }
      if (status.state !== 'connected') {
        throw new MountError(
          status.failure ?? `server ended in state ${status.state}`,
          status.stderrTail.length > 0 ? status.stderrTail : factory.tail(),
        );
      }
      const first = mounted.client;
      // The live connection: a server that closed and was restarted answers on its new one.
      const catalog =
        first === undefined ? undefined : createMcpCatalog(() => mounted.client ?? first);
      return {
        progress: status,
        ...(catalog === undefined || (!catalog.prompts && !catalog.resources) ? {} : { catalog }),
        current: () => mounted.status(),
      };
    },
  };
}

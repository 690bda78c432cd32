/**
 * The MCP connector: the transport-independent client core (`@clat/adapter-mcp`) over the stdio
 * and Streamable HTTP transports, adapted to the project mount's ServerConnector port.
 * @module
 */
import { type McpServerStatus, mountMcpServer } from '@clat/adapter-mcp';
import { HttpTransportFactory, OAuthClient } from '@clat/adapter-mcp-http';
import { StdioTransportFactory } from '@clat/adapter-mcp-stdio';
import {
  LIMITS,
  Redactor,
  type Transport,
  type TransportFactory,
  toolAllowedByEntry,
} from '@clat/kernel';
import { oauthDirIn } from '../config/clat-home.js';
import type { EraMemory } from '../config/era-store.js';
import { FileTokenStore } from '../config/oauth-token-store.js';
import { CLAT_VERSION } from '../version.js';
import { addEntrySecrets } from './secret-env.js';
import {
  type MountEntry,
  type MountedServer,
  type ServerConnector,
  ServerMountError,
  type ServerMountRequest,
  type ServerProgress,
} from './server-connector.js';

function progressOf(status: McpServerStatus): ServerProgress {
  return {
    ...(status.protocolVersion === undefined ? {} : { protocolVersion: status.protocolVersion }),
    ...(status.era === undefined ? {} : { era: status.era }),
    tools: status.tools,
    prompts: status.prompts,
    stderrTail: status.stderrTail,
    warnings: [...status.notes, ...(status.promptError === undefined ? [] : [status.promptError])],
  };
}

/** The command a person runs to log in to `name` (shown in /mcp, errors and headless runs). */
export function loginCommand(name: string): string {
  return `clat mcp login ${/^[\w.@-]+$/.test(name) ? name : JSON.stringify(name)}`;
}

/**
 * The OAuth client of an HTTP entry, unless its configured headers already authorize it (a
 * static `Authorization` header wins: the user chose it).
 */
export function oauthClientFor(
  server: Extract<MountEntry, { transport: 'http' }>,
  clatHome: string,
): OAuthClient | undefined {
  const headers = Object.keys(server.headers ?? {}).map((name) => name.toLowerCase());
  if (headers.includes('authorization') && server.oauth === undefined) return undefined;
  return new OAuthClient({
    serverUrl: server.url,
    store: new FileTokenStore(oauthDirIn(clatHome)),
    config: server.oauth,
    clientName: 'CLAT',
    loginHint: `run \`${loginCommand(server.name)}\``,
  });
}

function factoryFor(
  request: ServerMountRequest,
  redactor: Redactor,
  oauth: OAuthClient | undefined,
): TransportFactory {
  const { server } = request;
  if (server.transport === 'wasm') throw new Error('the MCP connector does not mount WASM plugins');
  if (server.transport === 'http') {
    if (server.oauth?.clientSecret !== undefined) redactor.add(server.oauth.clientSecret);
    return new HttpTransportFactory({
      url: server.url,
      ...(server.headers === undefined ? {} : { headers: server.headers }),
      ...(oauth === undefined ? {} : { auth: oauth }),
    });
  }
  return new StdioTransportFactory({
    name: server.name,
    command: server.command,
    args: server.args,
    env: server.env,
    cwd: server.cwd,
    clatHome: request.clatHome,
    redactor,
  });
}

/**
 * Remembers the transports it opened, so a server that failed before its client existed still
 * has its (already redacted) stderr tail for /mcp.
 */
class TailKeepingFactory implements TransportFactory {
  readonly kind: TransportFactory['kind'];
  readonly probeIsolation: TransportFactory['probeIsolation'];
  readonly #inner: TransportFactory;
  #opened: Transport[] = [];

  constructor(inner: TransportFactory) {
    this.#inner = inner;
    this.kind = inner.kind;
    this.probeIsolation = inner.probeIsolation;
  }

  open(): Transport {
    const transport = this.#inner.open();
    this.#opened.push(transport);
    return transport;
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

export interface McpConnectorOptions {
  /** Remembers legacy-era configurations so their next start skips the probe. */
  eras?: EraMemory;
}

export function createMcpConnector(options: McpConnectorOptions = {}): ServerConnector {
  return {
    transports: ['stdio', 'http'],
    async mount(request: ServerMountRequest): Promise<MountedServer> {
      const redactor = new Redactor();
      addEntrySecrets(redactor, request.server);
      const server = request.server;
      if (server.transport === 'wasm') {
        throw new ServerMountError('the MCP connector does not mount WASM plugins');
      }
      const oauth =
        server.transport === 'http' ? oauthClientFor(server, request.clatHome) : undefined;
      let factory: TailKeepingFactory;
      try {
        factory = new TailKeepingFactory(factoryFor(request, redactor, oauth));
      } catch (error) {
        throw new ServerMountError(redactor.redact((error as Error).message));
      }
      const eraHint = await options.eras?.hint(server);
      const mounted = await mountMcpServer({
        eraHint,
        name: request.server.name,
        factory,
        registry: request.registry,
        prompts: request.prompts,
        scope: request.scope,
        hostServices: request.hostServices,
        projectRoot: request.projectRoot,
        clientInfo: { name: 'clat', version: CLAT_VERSION },
        signal: request.signal,
        redactor,
        toolFilter: (tool) => toolAllowedByEntry(server, tool),
        onStatus: (status) => {
          request.onProgress({
            ...progressOf(status),
            ...(status.state === 'connecting' ? { phase: 'connecting' } : {}),
          });
        },
      });
      const status = mounted.status();
      if (status.state !== 'connected' && oauth?.loginRequired === true) {
        throw new ServerMountError(
          `needs login: run \`${loginCommand(server.name)}\``,
          [],
          loginCommand(server.name),
        );
      }
      if (status.state === 'connected') {
        await options.eras?.record(
          server,
          status.era,
          status.serverInfo?.version,
          eraHint !== undefined,
        );
      }
      if (status.state !== 'connected') {
        const tail = status.stderrTail.length > 0 ? status.stderrTail : factory.tail();
        throw new ServerMountError(
          status.error ?? `server ended in state ${status.state}`,
          tail.map((line) => redactor.redact(line)),
        );
      }
      return {
        progress: progressOf(status),
        current: () => {
          const now = mounted.status();
          return {
            ...progressOf(now),
            ...(now.state === 'failed' ? { failure: now.error ?? 'connection lost' } : {}),
          };
        },
        close: () => mounted.close(),
      };
    },
  };
}

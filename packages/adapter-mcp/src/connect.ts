/**
 * Connecting an McpClient: opening sessions from the transport factory and choosing the era
 * (the remembered-legacy shortcut, the modern probe, the legacy fallback on a fresh transport
 * when the factory asks for probe isolation).
 * @module
 */
import { errorMessage } from '@clat/kernel';
import {
  decorate,
  quoted,
  slowStartSuffix,
  stderrSuffix,
  stderrTail,
  withoutServerName,
} from './client-diagnostics.js';
import type { McpClientOptions } from './client-types.js';
import { isMcpError, McpError, McpErrorCode } from './errors.js';
import {
  legacyHandshake,
  type Negotiated,
  type OpenedSession,
  type ProbeOutcome,
  probeModern,
  readDiscover,
} from './handshake.js';
import { createHostHandlers, type HostHandlers, installHostHandlers } from './host-requests.js';
import {
  CLIENT_NAME,
  clientCapabilities,
  type McpClientInfo,
  type McpTimeouts,
  resolveTimeouts,
} from './protocol.js';
import { projectRoots } from './roots.js';
import { RpcSession } from './rpc-session.js';
import type { TransportFactory, TransportKind } from './transport.js';

const CLIENT_VERSION = '0.1.0';

/**
 * What server-request handlers ask of the client. The handshake must answer before the client
 * object exists, so the client rewires these once it does.
 */
export interface ClientHooks {
  toolCallActive: () => boolean;
  elicitation: () => boolean;
  serverCapabilities?: () => Record<string, unknown>;
  /** `roots/list` requests served so far (legacy and input requests), and when the last was. */
  rootsServed: { count: number; lastAt: number };
}

/** A negotiated connection and what the client needs to speak on it. */
export interface Connection {
  negotiated: Negotiated;
  clientInfo: McpClientInfo;
  capabilities: Record<string, unknown>;
  timeouts: McpTimeouts;
  /** How many transports were opened (probe plus session). */
  opened: number;
  /** The kind of the factory whose transport carries the session (its fallback's, if used). */
  transportKind: TransportKind;
  /** Teardown of a discarded probe transport still in progress. */
  probeClosing: Promise<void> | undefined;
  /** The server-request handlers installed on the session (also run for input rounds). */
  handlers: HostHandlers;
}

/**
 * Connects and negotiates the era. Modern `server/discover` first (3 s); on failure the legacy
 * `initialize` handshake (10 s), on a fresh transport when the factory asks for probe
 * isolation. A recognized modern error never falls back.
 */
export async function negotiateConnection(
  options: McpClientOptions,
  hooks: ClientHooks,
): Promise<Connection> {
  const timeouts = resolveTimeouts(options.timeouts);
  const clientInfo = options.clientInfo ?? { name: CLIENT_NAME, version: CLIENT_VERSION };
  const roots = options.projectRoot === undefined ? undefined : projectRoots(options.projectRoot);
  const capabilities = clientCapabilities(options.hostServices !== undefined, roots !== undefined);
  const server = options.name;
  const onDiagnostic = options.onDiagnostic ?? (() => {});
  const { factory, signal } = options;
  let opened = 0;
  const handlers = createHostHandlers({
    server,
    host: options.hostServices,
    roots,
    openUrl: options.openUrl,
    onRootsServed: () => {
      hooks.rootsServed.count++;
      hooks.rootsServed.lastAt = Date.now();
    },
    serverCapabilities: () => hooks.serverCapabilities?.() ?? {},
    elicitationAllowed: () => hooks.elicitation(),
    toolCallActive: () => hooks.toolCallActive(),
  });
  const open = async (from: TransportFactory = factory): Promise<OpenedSession> => {
    opened++;
    let transport: OpenedSession['transport'];
    try {
      transport = from.open();
    } catch (error) {
      throw new McpError(
        McpErrorCode.MCP_HANDSHAKE_FAILED,
        `could not start MCP server ${quoted(server)}: ${errorMessage(error)}`,
        { server, cause: error },
      );
    }
    const session = new RpcSession(transport, { server, onDiagnostic });
    installHostHandlers(session, handlers);
    try {
      await session.start();
    } catch (error) {
      await session.close().catch(() => {});
      throw new McpError(
        McpErrorCode.MCP_HANDSHAKE_FAILED,
        `could not start MCP server ${quoted(server)}: ${errorMessage(error)}${stderrSuffix(transport)}`,
        { server, cause: error, stderrTail: stderrTail(transport) },
      );
    }
    return { session, transport };
  };
  const checkAbort = async (session: RpcSession | undefined): Promise<void> => {
    if (signal?.aborted !== true) return;
    await session?.close().catch(() => {});
    throw new McpError(
      McpErrorCode.MCP_CANCELLED,
      `connecting to MCP server ${quoted(server)} was cancelled`,
      { server, cause: signal.reason },
    );
  };
  const connection = (
    negotiated: Negotiated,
    probeClosing: Promise<void> | undefined,
  ): Connection => ({
    negotiated,
    clientInfo,
    capabilities,
    timeouts,
    opened,
    transportKind,
    probeClosing,
    handlers,
  });

  // The legacy handshake (initialize, then initialized) on one opened transport.
  const legacyOn = (opened: OpenedSession): Promise<Negotiated> =>
    legacyHandshake(server, opened, clientInfo, capabilities, timeouts, signal);
  // The older transport a refused legacy `initialize` points to (Streamable HTTP → HTTP+SSE),
  // tried at most once per connect; `olderFailure` keeps why it failed for the final error.
  let transportKind = factory.kind;
  let olderTried = false;
  let olderFailure: string | undefined;
  const legacyOverOlder = async (refusal: unknown): Promise<Negotiated | undefined> => {
    const older = olderTried ? undefined : factory.fallback?.(refusal);
    if (older === undefined) return undefined;
    olderTried = true;
    onDiagnostic(
      `MCP server ${quoted(server)} refused initialize over ${factory.kind} (${errorMessage(refusal)}); trying the ${older.kind} transport`,
    );
    let session: OpenedSession | undefined;
    try {
      session = await open(older);
      const negotiated = await legacyOn(session);
      transportKind = older.kind;
      return negotiated;
    } catch (error) {
      await session?.session.close().catch(() => {});
      if (isMcpError(error) && error.code === McpErrorCode.MCP_CANCELLED) throw error;
      // open() names the server already; the transport's own reason is what the user needs.
      const reason = isMcpError(error) && error.cause !== undefined ? error.cause : error;
      olderFailure = `${older.kind} transport: ${withoutServerName(server, errorMessage(reason))}`;
      return undefined;
    }
  };

  await checkAbort(undefined);
  if (factory.legacyOnly === true) {
    // HTTP+SSE and the like: no modern era to probe for.
    const direct = await open();
    let negotiated: Negotiated;
    try {
      negotiated = await legacyOn(direct);
    } catch (error) {
      await direct.session.close().catch(() => {});
      if (isMcpError(error) && error.code === McpErrorCode.MCP_CANCELLED) throw error;
      const text = `MCP server ${quoted(server)} failed initialize over ${factory.kind}: ${isMcpError(error) ? error.message : errorMessage(error)}`;
      throw new McpError(
        McpErrorCode.MCP_HANDSHAKE_FAILED,
        `${text}${stderrSuffix(direct.transport, text)}`,
        {
          server,
          cause: error,
          stderrTail: stderrTail(direct.transport),
        },
      );
    }
    await checkAbort(negotiated.session);
    return connection(negotiated, undefined);
  }
  if (options.eraHint === 'legacy') {
    let remembered: Negotiated | undefined;
    const direct = await open();
    try {
      remembered = await legacyOn(direct);
    } catch (error) {
      await direct.session.close().catch(() => {});
      if (isMcpError(error) && error.code === McpErrorCode.MCP_CANCELLED) throw error;
      // A server remembered as legacy that refuses initialize here may speak HTTP+SSE only.
      remembered = await legacyOverOlder(error);
      if (remembered === undefined) {
        onDiagnostic(
          `MCP server ${quoted(server)} was remembered as legacy but initialize failed (${errorMessage(error)}); probing a fresh process`,
        );
      }
    }
    if (remembered !== undefined) {
      await checkAbort(remembered.session);
      return connection(remembered, undefined);
    }
  }
  let first = await open();
  let probe: ProbeOutcome;
  try {
    probe = await probeModern(
      first.session,
      factory.kind,
      clientInfo,
      capabilities,
      timeouts,
      signal,
    );
  } catch (error) {
    await first.session.close().catch(() => {});
    throw decorate(error, first.transport);
  }
  await checkAbort(first.session);

  let negotiated: Negotiated;
  let probeClosing: Promise<void> | undefined;
  if (probe.kind === 'modern') {
    try {
      negotiated = readDiscover(server, first, probe.result);
    } catch (error) {
      await first.session.close().catch(() => {});
      throw decorate(error, first.transport);
    }
  } else {
    onDiagnostic(`MCP server ${quoted(server)} is not modern (${probe.reason}); using initialize`);
    if (factory.probeIsolation === 'fresh') {
      // A strict legacy server must never see initialize after an unsupported probe. The probe
      // is torn down in parallel: a server that ignores EOF and SIGTERM would otherwise delay
      // the fresh handshake by its whole grace period. connect() still reaps it before returning
      // a failure, and close() awaits it on success.
      probeClosing = first.session.close().catch(() => {});
      await checkAbort(undefined);
      first = await open().catch(async (error: unknown) => {
        await probeClosing;
        throw error;
      });
    }
    try {
      negotiated = await legacyOn(first);
    } catch (error) {
      await Promise.all([first.session.close().catch(() => {}), probeClosing]);
      const cause = isMcpError(error) ? error.message : errorMessage(error);
      if (isMcpError(error) && error.code === McpErrorCode.MCP_CANCELLED) throw error;
      const older = await legacyOverOlder(error);
      if (older !== undefined) {
        await checkAbort(older.session);
        return connection(older, undefined);
      }
      // Each attempt's reason names the server again: say the name once, up front. A server
      // that failed both the same way (it exits at start) is quoted once too.
      const probeReason = withoutServerName(server, probe.reason);
      const legacyReason = withoutServerName(server, cause);
      const attempts = sameFailure(probeReason, legacyReason)
        ? `modern probe and legacy initialize both: ${legacyReason}`
        : `modern probe: ${probeReason}; legacy initialize: ${legacyReason}`;
      const all =
        olderFailure === undefined
          ? `MCP server ${quoted(server)} failed both handshakes: ${attempts}`
          : `MCP server ${quoted(server)} failed every handshake: ${attempts}; ${olderFailure}`;
      throw new McpError(
        McpErrorCode.MCP_HANDSHAKE_FAILED,
        `${all}${stderrSuffix(first.transport, all)}${slowStartSuffix(first.transport, error)}`,
        { server, cause: error, stderrTail: stderrTail(first.transport) },
      );
    }
  }
  if (signal?.aborted === true) await probeClosing;
  await checkAbort(negotiated.session);
  return connection(negotiated, probeClosing);
}

/**
 * Two attempts' reasons that are the same but for numbers in the stderr they quote (a
 * timestamp, a log file's name) say the same thing. Numbers before it, an exit code or a
 * timeout, must match.
 */
function sameFailure(a: string, b: string): boolean {
  return withoutStderrNumbers(a) === withoutStderrNumbers(b);
}

function withoutStderrNumbers(reason: string): string {
  const quote = reason.indexOf('(stderr: ');
  return quote === -1 ? reason : reason.slice(0, quote) + reason.slice(quote).replace(/\d+/g, '#');
}

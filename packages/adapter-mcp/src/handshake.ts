/**
 * The two MCP handshakes on an opened session: the modern `server/discover` probe (and reading
 * its result) and the legacy `initialize` exchange. Each yields the negotiated connection facts.
 * @module
 */
import { isJsonObject } from '@clat/kernel';
import { quoted } from './client-diagnostics.js';
import type { McpServerInfo } from './client-types.js';
import { findInCauses, isMcpError, McpError, McpErrorCode } from './errors.js';
import {
  LATEST_LEGACY_PROTOCOL_VERSION,
  LEGACY_PROTOCOL_VERSIONS,
  type McpClientInfo,
  type McpEra,
  type McpTimeouts,
  META,
  MODERN_ERROR_CODES,
  MODERN_PROTOCOL_VERSION,
  modernMeta,
} from './protocol.js';
import { checkResultType } from './result-type.js';
import type { RpcSession } from './rpc-session.js';
import type { Transport, TransportKind } from './transport.js';

/** A started session over its transport, before any handshake. */
export interface OpenedSession {
  session: RpcSession;
  transport: Transport;
}

/** What a handshake settled: the era, the version and what the server said about itself. */
export interface Negotiated extends OpenedSession {
  era: McpEra;
  protocolVersion: string;
  serverInfo: McpServerInfo;
  capabilities: Record<string, unknown>;
  instructions: string | undefined;
}

export type ProbeOutcome =
  | { kind: 'modern'; result: Record<string, unknown> }
  | { kind: 'legacy'; reason: string };

function readServerInfo(value: unknown): McpServerInfo {
  if (!isJsonObject(value)) return { name: 'unknown', version: 'unknown' };
  const info: McpServerInfo = {
    name: typeof value.name === 'string' ? value.name : 'unknown',
    version: typeof value.version === 'string' ? value.version : 'unknown',
  };
  if (typeof value.title === 'string') info.title = value.title;
  return info;
}

/** HTTP statuses whose failed probe still points at a legacy server (mcp-protocol.md §1). */
const HTTP_LEGACY_PROBE_STATUSES: ReadonlySet<number> = new Set([400, 404, 405]);

/** The HTTP status a transport error carries (`status` on the error or a cause), if any. */
function httpStatusOf(error: unknown): number | undefined {
  return findInCauses(error, (node) => {
    const status = (node as { status?: unknown }).status;
    return typeof status === 'number' ? status : undefined;
  });
}

/**
 * Sends `server/discover`. A result naming {@link MODERN_PROTOCOL_VERSION}, or a recognized modern
 * error, means modern; a result without that version and any other JSON-RPC error mean legacy
 * (never keyed on one error code). A timeout means legacy too: the limits table gives the probe
 * 3 s and then the legacy handshake its own 10 s, and a server that fails both is reported with
 * both reasons. A closed connection means legacy on stdio only: on HTTP an unreachable, broken or
 * unauthorized server is no legacy one, so only a 400/404/405 status counts there and every other
 * failure fails the connection.
 */
export async function probeModern(
  session: RpcSession,
  kind: TransportKind,
  clientInfo: McpClientInfo,
  capabilities: Record<string, unknown>,
  timeouts: McpTimeouts,
  signal: AbortSignal | undefined,
): Promise<ProbeOutcome> {
  const server = session.server;
  session.headers?.useModern(MODERN_PROTOCOL_VERSION);
  let retried = false;
  for (;;) {
    try {
      const result = await session.request(
        'server/discover',
        { _meta: modernMeta(clientInfo, capabilities) },
        { timeoutMs: timeouts.modernProbeMs, signal, what: 'server/discover', cancellable: true },
      );
      if (!Array.isArray(result.supportedVersions)) {
        return { kind: 'legacy', reason: 'server/discover result lacks supportedVersions' };
      }
      if (!result.supportedVersions.includes(MODERN_PROTOCOL_VERSION)) {
        const listed = result.supportedVersions
          .filter((v): v is string => typeof v === 'string')
          .slice(0, 8)
          .join(', ');
        return {
          kind: 'legacy',
          reason: `server/discover lists supportedVersions ${listed === '' ? '(none)' : listed}, not ${MODERN_PROTOCOL_VERSION}`,
        };
      }
      return { kind: 'modern', result };
    } catch (error) {
      if (!isMcpError(error)) throw error;
      if (error.code === McpErrorCode.MCP_CANCELLED) throw error;
      if (error.code === McpErrorCode.MCP_REMOTE_ERROR && error.rpcCode !== undefined) {
        if (!MODERN_ERROR_CODES.has(error.rpcCode)) {
          return { kind: 'legacy', reason: `server/discover failed with ${error.rpcCode}` };
        }
        const supported = isJsonObject(error.rpcData) ? error.rpcData.supported : undefined;
        // -32022 naming our version: the server is modern and wants the request again.
        if (
          error.rpcCode === -32022 &&
          !retried &&
          Array.isArray(supported) &&
          supported.includes(MODERN_PROTOCOL_VERSION)
        ) {
          retried = true;
          continue;
        }
        throw new McpError(
          McpErrorCode.MCP_HANDSHAKE_FAILED,
          `MCP server ${quoted(server)} is modern but refused ${MODERN_PROTOCOL_VERSION}: ${error.message}${Array.isArray(supported) ? ` (supported: ${supported.join(', ')})` : ''}`,
          { server, cause: error },
        );
      }
      if (kind === 'http' && error.code !== McpErrorCode.MCP_TIMEOUT) {
        const status = httpStatusOf(error);
        if (status === undefined || !HTTP_LEGACY_PROBE_STATUSES.has(status)) {
          // Only a status could have been mistaken for a legacy server's answer; a network or
          // login failure needs no word on the fallback.
          const why =
            status === undefined
              ? ''
              : '; over HTTP that is no evidence of a legacy server, so CLAT does not fall back to initialize';
          throw new McpError(
            McpErrorCode.MCP_HANDSHAKE_FAILED,
            `MCP server ${quoted(server)} failed the modern probe: ${error.message}${why}`,
            { server, cause: error },
          );
        }
      }
      return { kind: 'legacy', reason: error.message };
    }
  }
}

/** Reads a `server/discover` result (already known to name our version) into the negotiated facts. */
export function readDiscover(
  server: string,
  opened: OpenedSession,
  result: Record<string, unknown>,
): Negotiated {
  checkResultType(server, 'modern', 'server/discover', result);
  if (!isJsonObject(result.capabilities)) {
    throw new McpError(
      McpErrorCode.MCP_PROTOCOL_VIOLATION,
      `MCP server ${quoted(server)} answered server/discover without a capabilities object`,
      { server },
    );
  }
  const meta = isJsonObject(result._meta) ? result._meta : {};
  return {
    ...opened,
    era: 'modern',
    protocolVersion: MODERN_PROTOCOL_VERSION,
    serverInfo: readServerInfo(meta[META.serverInfo] ?? result.serverInfo),
    capabilities: result.capabilities,
    instructions: typeof result.instructions === 'string' ? result.instructions : undefined,
  };
}

/** `initialize` (never cancelled, per the spec) then `notifications/initialized`. */
export async function legacyHandshake(
  server: string,
  opened: OpenedSession,
  clientInfo: McpClientInfo,
  capabilities: Record<string, unknown>,
  timeouts: McpTimeouts,
  signal: AbortSignal | undefined,
): Promise<Negotiated> {
  // No MCP-Protocol-Version until initialize settled it (the same session may have carried the
  // modern probe).
  opened.session.headers?.useLegacy(undefined);
  const result = await opened.session.request(
    'initialize',
    {
      protocolVersion: LATEST_LEGACY_PROTOCOL_VERSION,
      capabilities,
      clientInfo: { ...clientInfo },
    },
    {
      timeoutMs: timeouts.legacyHandshakeMs,
      signal,
      what: 'initialize',
      // The spec forbids cancelling initialize.
      cancellable: false,
    },
  );
  const version = result.protocolVersion;
  if (
    typeof version !== 'string' ||
    !(LEGACY_PROTOCOL_VERSIONS as readonly string[]).includes(version)
  ) {
    throw new McpError(
      McpErrorCode.MCP_HANDSHAKE_FAILED,
      `initialize returned protocol version ${JSON.stringify(version)}; CLAT accepts ${LEGACY_PROTOCOL_VERSIONS.join(', ')}`,
      { server },
    );
  }
  opened.session.headers?.useLegacy(version);
  await opened.session.notify('notifications/initialized', {});
  return {
    ...opened,
    era: 'legacy',
    protocolVersion: version,
    serverInfo: readServerInfo(result.serverInfo),
    capabilities: isJsonObject(result.capabilities) ? result.capabilities : {},
    instructions: typeof result.instructions === 'string' ? result.instructions : undefined,
  };
}

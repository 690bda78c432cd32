/**
 * Header rules of Streamable HTTP the transport owns: names and media types. Configured headers
 * are checked with the MCP core's `headerProblem` (mcp.json refuses a bad one by field; the
 * transport checks again once `${VAR}` references expanded). The protocol headers of each
 * message (`MCP-Protocol-Version`, `Mcp-Method`, …) are computed by the client core.
 * @module
 */
import { MCP_HEADER } from '@clat/adapter-mcp';

export const HEADER = {
  accept: 'accept',
  contentType: 'content-type',
  sessionId: 'mcp-session-id',
  protocolVersion: MCP_HEADER.protocolVersion,
  method: MCP_HEADER.method,
  lastEventId: 'last-event-id',
  authorization: 'authorization',
} as const;

export const ACCEPT_BOTH = 'application/json, text/event-stream';

/**
 * The configured headers of a transport, names lower-cased, so the protocol's own `Accept` and
 * `Content-Type` replace a caller's instead of being sent beside them.
 */
export function configuredHeaders(
  headers: Readonly<Record<string, string>> | undefined,
): Readonly<Record<string, string>> {
  return Object.freeze(
    Object.fromEntries(
      Object.entries(headers ?? {}).map(([name, value]) => [name.toLowerCase(), value]),
    ),
  );
}

/** `text/event-stream; charset=utf-8` → `text/event-stream`. */
export function mediaType(header: string | null): string {
  return (header ?? '').split(';', 1)[0]?.trim().toLowerCase() ?? '';
}

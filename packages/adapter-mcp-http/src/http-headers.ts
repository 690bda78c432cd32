/**
 * Header rules of Streamable HTTP the transport owns: names, validation of caller-provided headers
 * (with messages that name the header, never its value) and media types. The protocol headers of
 * each message (`MCP-Protocol-Version`, `Mcp-Method`, …) are computed by the client core.
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

const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

/**
 * Returns the reason a caller-provided header is unusable, or undefined. fetch would reject the
 * same header with an error quoting the value, so the check runs first.
 */
export function headerProblem(name: string, value: string): string | undefined {
  if (!TOKEN.test(name)) return `header name ${JSON.stringify(name)} is not a valid HTTP token`;
  for (let i = 0; i < value.length; i++) {
    const code = value.charCodeAt(i);
    if (code > 0xff || code === 0x0a || code === 0x0d || code === 0x00) {
      return `header ${JSON.stringify(name)} has a value with line breaks or non-Latin-1 characters`;
    }
  }
  return undefined;
}

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

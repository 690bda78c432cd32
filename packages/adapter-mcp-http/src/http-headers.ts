/**
 * Header rules of Streamable HTTP: validation of caller-provided headers (with messages that name
 * the header, never its value) and the per-request headers of the 2026-07-28 revision.
 * @module
 */
import type { JsonRpcMessage } from '@clat/adapter-mcp';

export const HEADER = {
  accept: 'accept',
  contentType: 'content-type',
  sessionId: 'mcp-session-id',
  protocolVersion: 'mcp-protocol-version',
  method: 'mcp-method',
  name: 'mcp-name',
  lastEventId: 'last-event-id',
  authorization: 'authorization',
} as const;

export const ACCEPT_BOTH = 'application/json, text/event-stream';

/** `_meta` key whose presence makes a request modern (2026-07-28 and later). */
export const META_PROTOCOL_VERSION = 'io.modelcontextprotocol/protocolVersion';

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

/** Header-safe form of a value: as is when plain ASCII, else the `=?base64?…?=` sentinel. */
export function encodeHeaderValue(value: string): string {
  const plain = /^[\x20-\x7e]*$/.test(value) && value.trim() === value && !value.startsWith('=?');
  if (plain) return value;
  return `=?base64?${Buffer.from(value, 'utf8').toString('base64')}?=`;
}

/** The protocol version a modern request carries in `_meta`, or undefined for a legacy one. */
export function modernVersionOf(message: JsonRpcMessage): string | undefined {
  if (!('method' in message)) return undefined;
  const meta = message.params?._meta;
  if (typeof meta !== 'object' || meta === null) return undefined;
  const version = (meta as Record<string, unknown>)[META_PROTOCOL_VERSION];
  return typeof version === 'string' && version !== '' ? version : undefined;
}

const NAMED_METHODS: Readonly<Record<string, 'name' | 'uri'>> = {
  'tools/call': 'name',
  'prompts/get': 'name',
  'resources/read': 'uri',
};

/** `Mcp-Method` and `Mcp-Name` of a modern request (spec 2026-07-28, Streamable HTTP). */
export function modernRequestHeaders(method: string, params: unknown): Record<string, string> {
  const out: Record<string, string> = { [HEADER.method]: method };
  const key = NAMED_METHODS[method];
  if (key !== undefined && typeof params === 'object' && params !== null) {
    const value = (params as Record<string, unknown>)[key];
    if (typeof value === 'string') out[HEADER.name] = encodeHeaderValue(value);
  }
  return out;
}

/** `text/event-stream; charset=utf-8` → `text/event-stream`. */
export function mediaType(header: string | null): string {
  return (header ?? '').split(';', 1)[0]?.trim().toLowerCase() ?? '';
}

/**
 * Typed errors of the MCP client core. Local errors are never serialized; server requests map
 * failures to JSON-RPC codes at the edge (see host-requests.ts).
 * @module
 */

import { ClatError, clatErrorGuard } from '@clat/kernel';

export const McpErrorCode = {
  /** The transport ended (process exit, EOF, oversize frame, socket close) while a request waited. */
  MCP_CONNECTION_CLOSED: 'MCP_CONNECTION_CLOSED',
  /** A request got no answer before its deadline. */
  MCP_TIMEOUT: 'MCP_TIMEOUT',
  /** The caller cancelled a request; its pending slot is gone. */
  MCP_CANCELLED: 'MCP_CANCELLED',
  /** The server answered with a JSON-RPC error object. */
  MCP_REMOTE_ERROR: 'MCP_REMOTE_ERROR',
  /** A response broke the protocol (missing or unknown resultType, wrong shapes). */
  MCP_PROTOCOL_VIOLATION: 'MCP_PROTOCOL_VIOLATION',
  /** The server asked for a protocol feature CLAT does not implement. */
  MCP_UNSUPPORTED_FEATURE: 'MCP_UNSUPPORTED_FEATURE',
  /** An `input_required` request kept asking for input past the round limit. */
  MCP_INPUT_ROUNDS_EXCEEDED: 'MCP_INPUT_ROUNDS_EXCEEDED',
  /** An input request of an `input_required` result could not be served (refused, headless…). */
  MCP_INPUT_FAILED: 'MCP_INPUT_FAILED',
  /** Neither the modern probe nor the legacy handshake succeeded. */
  MCP_HANDSHAKE_FAILED: 'MCP_HANDSHAKE_FAILED',
  /** A listing crossed a page, item or cursor limit. */
  MCP_LIST_LIMIT: 'MCP_LIST_LIMIT',
  /**
   * A result a person reads (prompt, resource, DSH system prompt) crossed its limit, or a tool's
   * structured output its nesting limit. Tool result size is the pipeline's `LIMIT_EXCEEDED`.
   */
  MCP_RESULT_TOO_LARGE: 'MCP_RESULT_TOO_LARGE',
  /** A message could not be sent (writer busy, frame too large, transport closed). */
  MCP_SEND_FAILED: 'MCP_SEND_FAILED',
  /** A request needs a capability the server did not declare (prompts, resources). */
  MCP_NOT_OFFERED: 'MCP_NOT_OFFERED',
  /** The client was closed. */
  MCP_CLIENT_CLOSED: 'MCP_CLIENT_CLOSED',
  /** CLAT answers a server-initiated request with a JSON-RPC error (see RpcError). */
  MCP_REQUEST_REFUSED: 'MCP_REQUEST_REFUSED',
} as const;

export type McpErrorCode = (typeof McpErrorCode)[keyof typeof McpErrorCode];

export interface McpErrorOptions {
  /** Server name the error belongs to. */
  server?: string;
  /** JSON-RPC error code, for MCP_REMOTE_ERROR. */
  rpcCode?: number;
  /** JSON-RPC error data, for MCP_REMOTE_ERROR. */
  rpcData?: unknown;
  /** Redacted stderr tail of the transport that failed (handshake failures). */
  stderrTail?: string[];
  cause?: unknown;
}

/** A local error of the MCP client with a string code from {@link McpErrorCode}. */
export class McpError extends ClatError<McpErrorCode> {
  readonly server: string | undefined;
  readonly rpcCode: number | undefined;
  readonly rpcData: unknown;
  readonly stderrTail: readonly string[];

  constructor(code: McpErrorCode, message: string, options: McpErrorOptions = {}) {
    super(code, message, { cause: options.cause });
    this.name = 'McpError';
    this.server = options.server;
    this.rpcCode = options.rpcCode;
    this.rpcData = options.rpcData;
    this.stderrTail = options.stderrTail ?? [];
  }
}

/** True for a McpError from any bundled copy of this package. */
export const isMcpError = clatErrorGuard<McpError>('McpError');

/**
 * The first value `pick` finds on `error` or the errors it wraps (`cause`): a transport's error
 * reaches the client wrapped once or twice (`MCP_SEND_FAILED`, a handshake error), never deeper
 * than the 4 levels looked at.
 */
export function findInCauses<T>(
  error: unknown,
  pick: (node: object) => T | undefined,
): T | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 4 && typeof current === 'object' && current !== null; depth++) {
    const found = pick(current);
    if (found !== undefined) return found;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

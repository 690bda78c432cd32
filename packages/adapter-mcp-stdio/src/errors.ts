/**
 * Typed stdio-transport errors. Messages name the server and the command, never the environment,
 * and any stderr excerpt in them is redacted first.
 * @module
 */

import { ClatError, type ClatErrorOptions, clatErrorGuard } from '@clat/kernel';

export const StdioTransportErrorCode = {
  /** The command could not be started (not found, not executable). */
  STDIO_SPAWN_FAILED: 'STDIO_SPAWN_FAILED',
  /** The configured working directory is unusable. */
  STDIO_CWD_INVALID: 'STDIO_CWD_INVALID',
  /** A frame exceeded the stdio frame cap; the connection is failed. */
  STDIO_FRAME_TOO_LARGE: 'STDIO_FRAME_TOO_LARGE',
  /** A line was not a JSON-RPC message (reported, not fatal), or an outbound message could not be encoded. */
  STDIO_FRAME_INVALID: 'STDIO_FRAME_INVALID',
  /** The server process exited (or its stdout ended) while the transport was open. */
  STDIO_PROCESS_EXITED: 'STDIO_PROCESS_EXITED',
  /** The writer queue is full because the server stopped reading stdin. */
  STDIO_WRITE_QUEUE_FULL: 'STDIO_WRITE_QUEUE_FULL',
  /** `send` before `start`, or `start` twice. */
  STDIO_NOT_STARTED: 'STDIO_NOT_STARTED',
  /** The transport was closed. */
  STDIO_CLOSED: 'STDIO_CLOSED',
} as const;

export type StdioTransportErrorCode =
  (typeof StdioTransportErrorCode)[keyof typeof StdioTransportErrorCode];

export type StdioTransportErrorOptions = ClatErrorOptions;

/** A failure of one stdio server connection, with a string code from {@link StdioTransportErrorCode}. */
export class StdioTransportError extends ClatError<StdioTransportErrorCode> {
  constructor(
    code: StdioTransportErrorCode,
    message: string,
    options: StdioTransportErrorOptions = {},
  ) {
    super(code, message, options);
    this.name = 'StdioTransportError';
  }
}

/** True for a StdioTransportError from any bundled copy of this package. */
export const isStdioTransportError = clatErrorGuard<StdioTransportError>('StdioTransportError');

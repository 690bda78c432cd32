/**
 * What the stdio transport does with each inbound frame its line decoder hands it: decode (pure
 * ASCII as Latin-1, a plain copy), parse, check the JSON-RPC shape and deliver it with its byte
 * length; report what is invalid; turn a skipped oversized response into an error for the
 * request it answered.
 * @module
 */
import { isAscii } from 'node:buffer';
import {
  JsonRpcErrorCode,
  type JsonRpcMessage,
  MCP_LIMITS,
  parseJsonRpcMessage,
} from '@clat/adapter-mcp';
import { errorMessage, type Redactor } from '@clat/kernel';
import { type StdioTransportError, StdioTransportErrorCode } from './errors.js';
import { readFrameHead, readFrameTailId } from './frame-head.js';

/** Frames from this size are checked for pure ASCII (decoded as Latin-1); smaller ones are too cheap. */
const ASCII_CHECK_BYTES = 4096;
/** Characters of an invalid line quoted in its diagnostic. */
const PREVIEW_CHARS = 120;
const MIB = 1024 * 1024;

/** What the reader needs of its transport. */
export interface InboundFramesHost {
  /** The configured server name. */
  readonly server: string;
  readonly redactor: Redactor;
  /** True once the transport closed: later frames are dropped. */
  closed(): boolean;
  /** Hands a valid message (and its frame's byte length) to the transport's `onmessage`. */
  deliver(message: JsonRpcMessage, frameBytes?: number): void;
  report(error: Error): void;
  error(code: StdioTransportErrorCode, what: string): StdioTransportError;
}

/** The inbound side of one stdio connection, fed by its line decoder. */
export class InboundFrames {
  readonly #host: InboundFramesHost;

  constructor(host: InboundFramesHost) {
    this.#host = host;
  }

  /**
   * A frame over the cap was skipped. When its head shows a response and its head or tail an id,
   * only that request fails (with a clear error); the connection stays open either way.
   */
  oversized(head: Buffer, bytes: number, tail?: Buffer): void {
    if (this.#host.closed()) return;
    const frame = readFrameHead(head.toString('utf8'));
    if (frame.id === undefined && tail !== undefined) {
      const id = readFrameTailId(tail.toString('utf8'));
      if (id !== undefined) frame.id = id;
    }
    const isResponse =
      !frame.keys.has('method') && (frame.keys.has('result') || frame.keys.has('error'));
    const limit = `${MCP_LIMITS.stdioFrameBytes / MIB} MiB`;
    this.#host.report(
      this.#host.error(
        StdioTransportErrorCode.STDIO_FRAME_TOO_LARGE,
        `sent a frame of ${bytes} bytes, over the ${limit} frame limit; skipped it${frame.id === undefined ? '' : ` (id ${JSON.stringify(frame.id)})`}`,
      ),
    );
    if (!isResponse || frame.id === undefined) return;
    try {
      this.#host.deliver({
        jsonrpc: '2.0',
        id: frame.id,
        error: {
          code: JsonRpcErrorCode.INTERNAL_ERROR,
          message: `MCP server "${this.#host.server}": the result exceeded the ${limit} frame limit (${bytes} bytes)`,
        },
      });
    } catch (error) {
      this.#host.report(error instanceof Error ? error : new Error(errorMessage(error)));
    }
  }

  line(bytes: Buffer): void {
    if (this.#host.closed()) return;
    // Pure ASCII (the usual JSON frame: non-ASCII text is mostly \u-escaped) decodes as Latin-1,
    // a straight copy several times cheaper than UTF-8 decoding for a big frame; the check is one
    // vectorised scan. The result is the same string either way.
    const text =
      bytes.length >= ASCII_CHECK_BYTES && isAscii(bytes)
        ? bytes.toString('latin1')
        : bytes.toString('utf8');
    if (text.trim() === '') return;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      this.#host.report(
        this.#host.error(
          StdioTransportErrorCode.STDIO_FRAME_INVALID,
          `sent a line that is not JSON (${bytes.length} bytes): ${this.#preview(text)}`,
        ),
      );
      return;
    }
    const message = parseJsonRpcMessage(value);
    if ('invalid' in message) {
      this.#host.report(
        this.#host.error(
          StdioTransportErrorCode.STDIO_FRAME_INVALID,
          `sent an invalid JSON-RPC frame: ${message.invalid}: ${this.#preview(text)}`,
        ),
      );
      return;
    }
    try {
      this.#host.deliver(message, bytes.length);
    } catch (error) {
      this.#host.report(error instanceof Error ? error : new Error(errorMessage(error)));
    }
  }

  #preview(text: string): string {
    const clean = this.#host.redactor.redact(text.slice(0, PREVIEW_CHARS * 4));
    return clean.length > PREVIEW_CHARS ? `${clean.slice(0, PREVIEW_CHARS)}…` : clean;
  }
}

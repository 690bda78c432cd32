/**
 * The adapter's own stdio framing, handed to the SDK's `serveStdio` as its transport.
 *
 * Why not the SDK's StdioServerTransport alone: on a 2026-07-28 (modern) connection the SDK
 * refuses every push-style server→client request (`createMessage`, `elicitInput`) and would
 * demand `input_required` results, which CLAT rejects. CLAT's stdio client dispatches
 * server→client requests on modern connections too, so this wire sends sampling, elicitation
 * and `io.artec.clat/*` requests itself, in both eras, with its own id space (`dsh-N`), and
 * consumes their responses before the SDK sees them. Everything else (era selection, discover,
 * initialize, tools, prompts) stays with the SDK. It also answers unparsable frames with -32700
 * and bounds frames at the kernel's stdio frame limit, which the SDK reader does not.
 * @module
 */
import type { Readable, Writable } from 'node:stream';
import { ClatError, JsonRpcErrorCode, LIMITS, parseJsonRpcMessage } from '@clat/kernel';
import type { JSONRPCMessage, Transport, TransportSendOptions } from '@modelcontextprotocol/server';
import { DshAdapterError, DshErrorCode } from './errors.js';

/** An error the client answered a server request with. */
export class HostRequestError extends ClatError<typeof DshErrorCode.HOST_CALL_FAILED> {
  /** The JSON-RPC error code of the client's answer. */
  readonly rpcCode: number;
  readonly rpcData: unknown;

  constructor(method: string, rpcCode: number, message: string, rpcData: unknown) {
    super(DshErrorCode.HOST_CALL_FAILED, `${method} failed (${rpcCode}): ${message}`);
    this.name = 'HostRequestError';
    this.rpcCode = rpcCode;
    this.rpcData = rpcData;
  }
}

export interface HostRequestOptions {
  signal: AbortSignal;
  /** Upper bound of the wait; CLAT bounds its own side, this keeps ours finite too. */
  timeoutMs?: number;
}

export interface StdioWireOptions {
  input: Readable;
  output: Writable;
  /** Diagnostics (never stdout). */
  log: (message: string) => void;
  /** Client→server notifications the adapter handles itself (e.g. context/changed). */
  interceptNotification?: (method: string, params: Record<string, unknown> | undefined) => boolean;
}

interface PendingRequest {
  method: string;
  resolve: (result: Record<string, unknown>) => void;
  reject: (error: Error) => void;
}

const HOST_REQUEST_TIMEOUT_MS = LIMITS.toolCallMs + LIMITS.toolCallExtensionTotalMs;

export class StdioWire implements Transport {
  onclose?: (() => void) | undefined;
  onerror?: ((error: Error) => void) | undefined;
  onmessage?: ((message: JSONRPCMessage) => void) | undefined;

  readonly #input: Readable;
  readonly #output: Writable;
  readonly #log: (message: string) => void;
  readonly #intercept: StdioWireOptions['interceptNotification'];
  readonly #pending = new Map<string, PendingRequest>();
  #chunks: Buffer[] = [];
  #buffered = 0;
  #discarding = false;
  #nextId = 1;
  #started = false;
  #closed = false;
  readonly #closedPromise: Promise<void>;
  #resolveClosed: () => void = () => {};

  constructor(options: StdioWireOptions) {
    this.#input = options.input;
    this.#output = options.output;
    this.#log = options.log;
    this.#intercept = options.interceptNotification;
    this.#closedPromise = new Promise((resolve) => {
      this.#resolveClosed = resolve;
    });
  }

  /** Resolves once the wire closed (EOF, error or close()). */
  get closed(): Promise<void> {
    return this.#closedPromise;
  }

  get isClosed(): boolean {
    return this.#closed;
  }

  async start(): Promise<void> {
    if (this.#started) throw new Error('stdio wire already started');
    this.#started = true;
    this.#input.on('data', this.#onData);
    this.#input.on('end', this.#onEnd);
    this.#input.on('close', this.#onEnd);
    this.#input.on('error', this.#onInputError);
    this.#output.on('error', this.#onOutputError);
    if (this.#input.readableEnded || this.#input.destroyed) setImmediate(this.#onEnd);
  }

  async send(message: JSONRPCMessage, _options?: TransportSendOptions): Promise<void> {
    await this.#write(message as unknown as Record<string, unknown>);
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#input.off('data', this.#onData);
    this.#input.off('end', this.#onEnd);
    this.#input.off('close', this.#onEnd);
    this.#input.off('error', this.#onInputError);
    this.#input.pause();
    for (const [id, pending] of this.#pending) {
      this.#pending.delete(id);
      pending.reject(
        new DshAdapterError(
          DshErrorCode.DISPOSED,
          `${pending.method} was pending when the connection closed`,
        ),
      );
    }
    this.#chunks = [];
    this.#buffered = 0;
    this.#resolveClosed();
    this.onclose?.();
  }

  /** Number of server→client requests awaiting an answer. */
  get pendingRequests(): number {
    return this.#pending.size;
  }

  /**
   * Sends one server→client request and waits for its answer. Abort sends
   * `notifications/cancelled` and rejects at once; the deadline is a backstop.
   */
  request(
    method: string,
    params: Record<string, unknown>,
    options: HostRequestOptions,
  ): Promise<Record<string, unknown>> {
    if (this.#closed) {
      return Promise.reject(
        new DshAdapterError(
          DshErrorCode.DISPOSED,
          `cannot send ${method}: the connection is closed`,
        ),
      );
    }
    const { signal } = options;
    if (signal.aborted) {
      return Promise.reject(
        new DshAdapterError(
          DshErrorCode.HOST_CALL_ABORTED,
          `${method} was cancelled before it was sent`,
        ),
      );
    }
    const id = `dsh-${this.#nextId++}`;
    const timeoutMs = options.timeoutMs ?? HOST_REQUEST_TIMEOUT_MS;
    return new Promise<Record<string, unknown>>((resolve, reject) => {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const cleanup = () => {
        this.#pending.delete(id);
        signal.removeEventListener('abort', onAbort);
        if (timer !== undefined) clearTimeout(timer);
      };
      const abandon = (error: Error, reason: string) => {
        if (!this.#pending.has(id)) return;
        cleanup();
        void this.#write({
          jsonrpc: '2.0',
          method: 'notifications/cancelled',
          params: { requestId: id, reason },
        }).catch(() => {});
        reject(error);
      };
      const onAbort = () =>
        abandon(
          new DshAdapterError(DshErrorCode.HOST_CALL_ABORTED, `${method} was cancelled`),
          `tool call cancelled`,
        );
      this.#pending.set(id, {
        method,
        resolve: (result) => {
          cleanup();
          resolve(result);
        },
        reject: (error) => {
          cleanup();
          reject(error);
        },
      });
      signal.addEventListener('abort', onAbort, { once: true });
      timer = setTimeout(
        () =>
          abandon(
            new DshAdapterError(
              DshErrorCode.HOST_CALL_FAILED,
              `${method} got no answer within ${timeoutMs} ms`,
            ),
            `no answer within ${timeoutMs} ms`,
          ),
        timeoutMs,
      );
      this.#write({ jsonrpc: '2.0', id, method, params }).catch((error: unknown) => {
        const pending = this.#pending.get(id);
        pending?.reject(error instanceof Error ? error : new Error(String(error)));
      });
    });
  }

  /** Sends a notification of the adapter's own (not routed through the SDK). */
  notify(method: string, params: Record<string, unknown>): Promise<void> {
    return this.#write({ jsonrpc: '2.0', method, params });
  }

  #write(message: Record<string, unknown>): Promise<void> {
    if (this.#closed) return Promise.reject(new Error('stdio wire is closed'));
    let line = `${JSON.stringify(message)}\n`;
    if (Buffer.byteLength(line) > LIMITS.stdioFrameBytes) {
      // Never emit an oversize frame; a response degrades to an error the peer can correlate.
      if ('id' in message && ('result' in message || 'error' in message)) {
        line = `${JSON.stringify({
          jsonrpc: '2.0',
          id: message.id,
          error: {
            code: JsonRpcErrorCode.INTERNAL_ERROR,
            message: `response exceeds the ${LIMITS.stdioFrameBytes}-byte stdio frame limit`,
          },
        })}\n`;
      } else {
        return Promise.reject(
          new Error(`message exceeds the ${LIMITS.stdioFrameBytes}-byte stdio frame limit`),
        );
      }
    }
    return new Promise((resolve, reject) => {
      this.#output.write(line, (error) => (error ? reject(error) : resolve()));
    });
  }

  #onData = (chunk: Buffer | string): void => {
    let data = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    while (data.length > 0) {
      const newline = data.indexOf(0x0a);
      if (newline < 0) {
        this.#append(data);
        return;
      }
      this.#append(data.subarray(0, newline));
      const frame = this.#take();
      data = data.subarray(newline + 1);
      if (frame !== undefined) this.#onFrame(frame);
    }
  };

  #append(part: Buffer): void {
    if (this.#discarding || part.length === 0) return;
    if (this.#buffered + part.length > LIMITS.stdioFrameBytes) {
      this.#discarding = true;
      this.#chunks = [];
      this.#buffered = 0;
      return;
    }
    this.#chunks.push(part);
    this.#buffered += part.length;
  }

  /** The completed line, or undefined when it was oversize (already reported). */
  #take(): string | undefined {
    if (this.#discarding) {
      this.#discarding = false;
      this.#log(`dropped an inbound frame larger than ${LIMITS.stdioFrameBytes} bytes`);
      this.#replyError(
        null,
        JsonRpcErrorCode.INVALID_REQUEST,
        `frame exceeds ${LIMITS.stdioFrameBytes} bytes`,
      );
      return undefined;
    }
    const line = Buffer.concat(this.#chunks, this.#buffered).toString('utf8');
    this.#chunks = [];
    this.#buffered = 0;
    return line;
  }

  #onFrame(raw: string): void {
    const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    if (line.trim() === '') return;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (error) {
      this.#replyError(
        null,
        JsonRpcErrorCode.PARSE_ERROR,
        `Parse error: ${(error as Error).message}`,
      );
      return;
    }
    const message = parseJsonRpcMessage(value);
    if ('invalid' in message) {
      const id = (value as { id?: unknown }).id;
      const echo = typeof id === 'string' || typeof id === 'number' ? id : null;
      this.#replyError(
        echo,
        JsonRpcErrorCode.INVALID_REQUEST,
        `Invalid request: ${message.invalid}`,
      );
      return;
    }
    if (!('method' in message)) {
      const id = String(message.id);
      const pending = this.#pending.get(id);
      if (pending !== undefined) {
        if ('error' in message) {
          pending.reject(
            new HostRequestError(
              pending.method,
              message.error.code,
              message.error.message,
              message.error.data,
            ),
          );
        } else {
          pending.resolve(message.result);
        }
        return;
      }
    } else if (!('id' in message) && this.#intercept?.(message.method, message.params) === true) {
      return;
    }
    this.onmessage?.(message as unknown as JSONRPCMessage);
  }

  #replyError(id: string | number | null, code: number, message: string): void {
    void this.#write({ jsonrpc: '2.0', id, error: { code, message } }).catch(() => {});
  }

  #onEnd = (): void => {
    void this.close();
  };

  #onInputError = (error: Error): void => {
    this.onerror?.(error);
    void this.close();
  };

  #onOutputError = (error: Error): void => {
    if (this.#closed) return;
    this.onerror?.(error);
    void this.close();
  };
}

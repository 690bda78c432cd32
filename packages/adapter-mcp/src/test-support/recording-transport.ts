/**
 * A Transport wrapper that records what the client passes with each message (headers, signal),
 * so tests see the per-message headers an HTTP transport would send. Test-only; not exported.
 * @module
 */
import type {
  JsonRpcMessage,
  Transport,
  TransportDiagnostics,
  TransportKind,
  TransportSendOptions,
} from '../transport.js';

export interface SentMessage {
  message: JsonRpcMessage;
  /** Undefined when the client passed no options at all. */
  options: TransportSendOptions | undefined;
}

/** Delegates to `inner`; `exchangePerMessage` decides whether the client passes options. */
export class RecordingTransport implements Transport {
  readonly kind: TransportKind;
  readonly exchangePerMessage: boolean;
  readonly sent: SentMessage[] = [];
  readonly #inner: Transport;

  constructor(inner: Transport, kind: TransportKind, exchangePerMessage: boolean) {
    this.#inner = inner;
    this.kind = kind;
    this.exchangePerMessage = exchangePerMessage;
  }

  get onmessage(): Transport['onmessage'] {
    return this.#inner.onmessage;
  }

  set onmessage(handler: Transport['onmessage']) {
    this.#inner.onmessage = handler;
  }

  get onerror(): Transport['onerror'] {
    return this.#inner.onerror;
  }

  set onerror(handler: Transport['onerror']) {
    this.#inner.onerror = handler;
  }

  get onclose(): Transport['onclose'] {
    return this.#inner.onclose;
  }

  set onclose(handler: Transport['onclose']) {
    this.#inner.onclose = handler;
  }

  start(): Promise<void> {
    return this.#inner.start();
  }

  send(message: JsonRpcMessage, options?: TransportSendOptions): Promise<void> {
    // Recorded before delivery, so a scripted server can read the headers of the request it got.
    this.sent.push({ message, options });
    return this.#inner.send(message);
  }

  close(): Promise<void> {
    return this.#inner.close();
  }

  diagnostics(): TransportDiagnostics {
    return this.#inner.diagnostics();
  }

  /** The headers passed with the request `id` (undefined: none were passed). */
  headersOf(id: unknown): Readonly<Record<string, string>> | undefined {
    return this.sent.find((s) => 'id' in s.message && s.message.id === id && 'method' in s.message)
      ?.options?.headers;
  }

  /** The signal passed with the request `id`. */
  signalOf(id: unknown): AbortSignal | undefined {
    return this.sent.find((s) => 'id' in s.message && s.message.id === id && 'method' in s.message)
      ?.options?.signal;
  }
}

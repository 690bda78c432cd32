import type { JsonRpcMessage, Transport, TransportDiagnostics } from '../transport.js';

/** One end of an in-memory pair; messages sent before the peer starts are queued. */
export class InMemoryTransport implements Transport {
  readonly kind = 'memory';
  onmessage?: ((message: JsonRpcMessage, frameBytes?: number) => void) | undefined;
  onerror?: ((error: Error) => void) | undefined;
  onclose?: ((error?: Error) => void) | undefined;
  peer: InMemoryTransport | undefined;
  readonly #queue: JsonRpcMessage[] = [];
  #started = false;
  #closed = false;

  async start(): Promise<void> {
    this.#started = true;
    while (this.#queue.length > 0) this.#deliver(this.#queue.shift() as JsonRpcMessage);
  }

  async send(message: JsonRpcMessage): Promise<void> {
    if (this.#closed || this.peer === undefined || this.peer.#closed) {
      throw new Error('in-memory transport is closed');
    }
    // Clone so neither side can mutate the other's objects, as a real wire would guarantee.
    this.peer.#receive(structuredClone(message));
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.onclose?.();
    await this.peer?.close();
  }

  diagnostics(): TransportDiagnostics {
    return { tail: [] };
  }

  #receive(message: JsonRpcMessage): void {
    if (this.#started) queueMicrotask(() => this.#deliver(message));
    else this.#queue.push(message);
  }

  #deliver(message: JsonRpcMessage): void {
    if (!this.#closed) this.onmessage?.(message);
  }
}

export function createLinkedTransportPair(): [InMemoryTransport, InMemoryTransport] {
  const a = new InMemoryTransport();
  const b = new InMemoryTransport();
  a.peer = b;
  b.peer = a;
  return [a, b];
}

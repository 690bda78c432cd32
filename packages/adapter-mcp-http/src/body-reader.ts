/**
 * Bounded readers for response bodies: a whole JSON body, or an SSE stream event by event. Both
 * stop reading (and report) the moment a cap is crossed, so a flooding server never grows memory.
 * @module
 */
import { ClatError } from '@clat/kernel';
import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { HttpTransportErrorCode } from './errors.js';
import { SseLines } from './sse-lines.js';

/**
 * Bytes read before the reader lets the event loop run. fetch's body stream hands over whatever
 * the socket has buffered through promise reactions alone, so without a yield a fast server's
 * whole body is read (and copied by undici into new memory) in one turn of the loop: 20–40 ms
 * on the CPU for 4 MiB on the bench VM, during which no timer or other I/O runs.
 */
const BYTES_PER_TURN = 256 * 1024;

/** Resolves in the loop's check phase, after timers and I/O that were due have run. */
function nextTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/** Counts the bytes a reader took since it last let the loop run. */
class TurnBudget {
  #bytes = 0;

  /** Adds `bytes`; true (and counting from zero again) once the turn's share is used up. */
  spent(bytes: number): boolean {
    this.#bytes += bytes;
    if (this.#bytes < BYTES_PER_TURN) return false;
    this.#bytes = 0;
    return true;
  }
}

/** Thrown by the readers when the cap is crossed; the caller aborts the fetch. */
export class BodyTooLarge extends ClatError<typeof HttpTransportErrorCode.HTTP_BODY_TOO_LARGE> {
  readonly limit: number;

  constructor(limit: number) {
    super(HttpTransportErrorCode.HTTP_BODY_TOO_LARGE, `body exceeded ${limit} bytes`);
    this.name = 'BodyTooLarge';
    this.limit = limit;
  }
}

/** Reads a whole body as UTF-8 text, at most `limit` bytes. */
export async function readBoundedText(
  body: ReadableStream<Uint8Array>,
  limit: number,
): Promise<string> {
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  const turn = new TurnBudget();
  let finished = false;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      total += value.byteLength;
      if (total > limit) throw new BodyTooLarge(limit);
      chunks.push(value);
      if (turn.spent(value.byteLength)) await nextTurn();
    }
    finished = true;
  } finally {
    await release(reader, finished);
  }
  return new TextDecoder().decode(Buffer.concat(chunks, total));
}

/**
 * The first 64 KiB of an error response's body as text, for its message and session checks;
 * undefined without a body or when it cannot be read.
 */
export async function errorBody(response: Response): Promise<string | undefined> {
  if (response.body === null) return undefined;
  try {
    return await readBoundedText(response.body, 64 * 1024);
  } catch {
    return undefined;
  }
}

export interface SseReadOptions {
  /** Bytes one event (including its partial lines) may take before the read fails. */
  limit: number;
  /** Called per event, in order; returning true stops reading (the awaited event arrived). */
  onEvent: (event: EventSourceMessage) => boolean;
  /** The server's `retry:` field (reconnection delay in ms). */
  onRetry?: ((ms: number) => void) | undefined;
}

/**
 * Reads an SSE body until the stream ends or `onEvent` returns true. Returns true when stopped by
 * `onEvent`, false when the stream ended first. Comment lines (keep-alives) are ignored.
 */
export async function readSse(
  body: ReadableStream<Uint8Array>,
  options: SseReadOptions,
): Promise<boolean> {
  const reader = body.getReader();
  const lines = new SseLines();
  // Bytes since the last dispatched event: the binding cap. The parser's own cap counts characters.
  let pendingBytes = 0;
  const turn = new TurnBudget();
  let dispatched = false;
  let stop = false;
  let overflow = false;
  let finished = false;
  const parser = createParser({
    maxBufferSize: options.limit,
    onEvent: (event) => {
      dispatched = true;
      if (stop || overflow) return;
      // An event that arrived whole within one read was never held: its own size is checked.
      if (event.data.length * 3 > options.limit && Buffer.byteLength(event.data) > options.limit)
        overflow = true;
      else if (options.onEvent(event)) stop = true;
    },
    onRetry: (ms) => options.onRetry?.(ms),
    onError: (error) => {
      if (error.type === 'max-buffer-size-exceeded') overflow = true;
    },
  });
  const feed = (text: string) => {
    if (text === '') return;
    try {
      parser.feed(text);
    } catch (error) {
      // A terminated parser throws on feed; the overflow flag says why.
      if (!overflow) throw error;
    }
    if (overflow) throw new BodyTooLarge(options.limit);
  };
  try {
    while (!stop) {
      const { done, value } = await reader.read();
      if (done) {
        finished = true;
        feed(lines.end());
        return stop;
      }
      pendingBytes += value.byteLength;
      const text = lines.push(value);
      // No line ended: refused as bytes, never decoded.
      if (text === '' && pendingBytes > options.limit) throw new BodyTooLarge(options.limit);
      feed(text);
      if (dispatched) {
        // What is still held belongs to the next event; the parser caps the lines it already has.
        dispatched = false;
        pendingBytes = lines.heldBytes;
      }
      if (pendingBytes > options.limit) throw new BodyTooLarge(options.limit);
      if (!stop && turn.spent(value.byteLength)) await nextTurn();
    }
    return true;
  } finally {
    await release(reader, finished);
  }
}

/** Cancels an unfinished body so its socket is freed, then releases the lock. */
async function release(
  reader: ReadableStreamDefaultReader<Uint8Array>,
  finished: boolean,
): Promise<void> {
  if (!finished) await reader.cancel().catch(() => {});
  reader.releaseLock();
}

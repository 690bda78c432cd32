/**
 * Bounded readers for response bodies: a whole JSON body, or an SSE stream event by event. Both
 * stop reading (and report) the moment a cap is crossed, so a flooding server never grows memory.
 * @module
 */
import { ClatError } from '@clat/kernel';
import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { HttpTransportErrorCode } from './errors.js';

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
  let finished = false;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      total += value.byteLength;
      if (total > limit) throw new BodyTooLarge(limit);
      chunks.push(value);
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
  const decoder = new TextDecoder();
  let pendingBytes = 0;
  let stop = false;
  let overflow = false;
  let finished = false;
  const parser = createParser({
    // The parser counts characters; the byte count below is the binding cap.
    maxBufferSize: options.limit,
    onEvent: (event) => {
      pendingBytes = 0;
      if (!stop && options.onEvent(event)) stop = true;
    },
    onRetry: (ms) => options.onRetry?.(ms),
    onError: (error) => {
      if (error.type === 'max-buffer-size-exceeded') overflow = true;
    },
  });
  try {
    while (!stop) {
      const { done, value } = await reader.read();
      if (done) {
        finished = true;
        parser.feed(decoder.decode());
        return stop;
      }
      // Bytes since the last dispatched event (an event resets the count while feeding).
      pendingBytes += value.byteLength;
      if (pendingBytes > options.limit) throw new BodyTooLarge(options.limit);
      try {
        parser.feed(decoder.decode(value, { stream: true }));
      } catch (error) {
        // A terminated parser throws on feed; the overflow flag says why.
        if (!overflow) throw error;
      }
      if (overflow) throw new BodyTooLarge(options.limit);
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

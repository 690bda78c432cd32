/**
 * Newline-delimited frame splitting with a hard byte cap. A frame over the cap is skipped to its
 * newline without being held (only its first bytes are kept, to tell whom it answered), so memory
 * never holds more than one cap; a frame that runs past the skip limit ends the stream.
 * @module
 */

/** Bytes of an oversized frame kept to read its id. */
export const FRAME_HEAD_BYTES = 1024;

export interface LineDecoderHandlers {
  /** One complete frame without its newline (a trailing CR is removed). */
  line(bytes: Buffer): void;
  /** A frame over the cap ended; it was skipped. `head` holds its first bytes. */
  oversized(head: Buffer, frameBytes: number): void;
  /** A frame ran past the skip limit without a newline; the decoder drops everything from here on. */
  overflow(seenBytes: number): void;
}

/** Splits a byte stream on `\n`; frames over `maxFrameBytes` are skipped, runaways end the stream. */
export class LineDecoder {
  readonly #max: number;
  readonly #skipLimit: number;
  readonly #handlers: LineDecoderHandlers;
  #parts: Buffer[] = [];
  #size = 0;
  #failed = false;
  /** While skipping an oversized frame: its head and how many bytes it had so far. */
  #skipping: { head: Buffer; seen: number } | undefined;

  constructor(maxFrameBytes: number, handlers: LineDecoderHandlers, skipLimitBytes = Infinity) {
    this.#max = maxFrameBytes;
    this.#skipLimit = skipLimitBytes;
    this.#handlers = handlers;
  }

  /** True once a frame overflowed; later input is ignored. */
  get failed(): boolean {
    return this.#failed;
  }

  /** Bytes held for the current unfinished frame. */
  get buffered(): number {
    return this.#size;
  }

  push(chunk: Buffer): void {
    let start = 0;
    while (!this.#failed && start < chunk.length) {
      const newline = chunk.indexOf(0x0a, start);
      const end = newline === -1 ? chunk.length : newline;
      const skipping = this.#skipping;
      if (skipping !== undefined) {
        skipping.seen += end - start;
        if (newline === -1) {
          if (skipping.seen > this.#skipLimit) this.#fail(skipping.seen);
          return;
        }
        this.#skipping = undefined;
        start = newline + 1;
        this.#handlers.oversized(skipping.head, skipping.seen);
        continue;
      }
      if (this.#size + (end - start) > this.#max) {
        // Keep the head (copied: the chunk is not ours), drop the rest and skip to the newline.
        const head = Buffer.concat(
          [...this.#parts, chunk.subarray(start, end)],
          Math.min(FRAME_HEAD_BYTES, this.#size + (end - start)),
        );
        this.#skipping = { head, seen: this.#size };
        this.#parts = [];
        this.#size = 0;
        continue;
      }
      const piece = chunk.subarray(start, end);
      if (newline === -1) {
        this.#parts.push(piece);
        this.#size += piece.length;
        return;
      }
      const frame = this.#parts.length === 0 ? piece : Buffer.concat([...this.#parts, piece]);
      this.#parts = [];
      this.#size = 0;
      start = newline + 1;
      const trimmed = frame.at(-1) === 0x0d ? frame.subarray(0, -1) : frame;
      this.#handlers.line(trimmed);
    }
  }

  #fail(seen: number): void {
    this.#failed = true;
    this.#skipping = undefined;
    this.#parts = [];
    this.#size = 0;
    this.#handlers.overflow(seen);
  }
}

/**
 * Newline-delimited frame splitting with a hard byte cap: a frame over the cap is reported as soon
 * as the cap is crossed, before the rest of it arrives, so memory never holds more than one cap.
 * @module
 */

export interface LineDecoderHandlers {
  /** One complete frame without its newline (a trailing CR is removed). */
  line(bytes: Buffer): void;
  /** A frame crossed the cap; the decoder drops everything from here on. */
  overflow(seenBytes: number): void;
}

/** Splits a byte stream on `\n`; frames longer than `maxFrameBytes` end the stream. */
export class LineDecoder {
  readonly #max: number;
  readonly #handlers: LineDecoderHandlers;
  #parts: Buffer[] = [];
  #size = 0;
  #failed = false;

  constructor(maxFrameBytes: number, handlers: LineDecoderHandlers) {
    this.#max = maxFrameBytes;
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
      if (this.#size + (end - start) > this.#max) {
        this.#fail(this.#size + (end - start));
        return;
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
    this.#parts = [];
    this.#size = 0;
    this.#handlers.overflow(seen);
  }
}

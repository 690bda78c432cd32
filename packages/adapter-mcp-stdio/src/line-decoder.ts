/**
 * Newline-delimited frame splitting with a hard byte cap. A frame over the cap is skipped to its
 * newline without being held (only its first bytes are kept, to tell whom it answered), so memory
 * never holds more than one cap; a frame that runs past the skip limit ends the stream.
 *
 * The decoder never keeps a chunk it is given: a frame that spans chunks is copied into one frame
 * buffer of its own, reused from frame to frame. So the reader may hand it one read buffer over
 * and over (the stdio transport does), and a flood of frames near the cap allocates one buffer,
 * not a new one per frame for the collector to catch up with.
 * @module
 */

/** Bytes of an oversized frame kept to read its id: its first bytes, and its last ones. */
export const FRAME_HEAD_BYTES = 1024;
export const FRAME_TAIL_BYTES = 256;
/** The frame buffer's first size; it doubles as frames need, up to the cap. */
const FIRST_FRAME_BUFFER_BYTES = 16 * 1024;
/** A frame buffer up to this size is kept for good; a bigger one only while it is being used. */
const KEPT_FRAME_BUFFER_BYTES = 64 * 1024;
/** A frame buffer over {@link KEPT_FRAME_BUFFER_BYTES} unused for this long is let go. */
const FRAME_BUFFER_IDLE_MS = 2_000;

export interface LineDecoderHandlers {
  /**
   * One complete frame without its newline (a trailing CR is removed). The bytes are lent for the
   * call: they may be the reader's buffer or the frame buffer, both reused afterwards.
   */
  line(bytes: Buffer): void;
  /**
   * A frame over the cap ended; it was skipped. `head` (the handler's own) holds its first bytes,
   * `tail` its last ones: a serializer that writes `id` after `result` puts it there.
   */
  oversized(head: Buffer, frameBytes: number, tail: Buffer): void;
  /** A frame ran past the skip limit without a newline; the decoder drops everything from here on. */
  overflow(seenBytes: number): void;
}

/** Splits a byte stream on `\n`; frames over `maxFrameBytes` are skipped, runaways end the stream. */
export class LineDecoder {
  readonly #max: number;
  readonly #skipLimit: number;
  readonly #handlers: LineDecoderHandlers;
  /** The start of the current frame when it spans chunks: `#size` bytes of it are used. */
  #frame: Buffer | undefined;
  #size = 0;
  /** Set when a big frame buffer was used; the idle timer lets the buffer go when it stays unset. */
  #frameUsed = false;
  #idleTimer: NodeJS.Timeout | undefined;
  #failed = false;
  /** While skipping an oversized frame: its head, its last bytes so far, and how many it had. */
  #skipping: { head: Buffer; tail: Buffer; tailBytes: number; seen: number } | undefined;

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

  /** Bytes the frame buffer holds on to (used or not). */
  get retained(): number {
    return this.#frame?.length ?? 0;
  }

  /** Decodes the first `length` bytes of `chunk` (all of it by default); keeps none of them. */
  push(chunk: Buffer, length = chunk.length): void {
    let start = 0;
    while (!this.#failed && start < length) {
      const found = chunk.indexOf(0x0a, start);
      const newline = found === -1 || found >= length ? -1 : found;
      const end = newline === -1 ? length : newline;
      const skipping = this.#skipping;
      if (skipping !== undefined) {
        skipping.seen += end - start;
        keepTail(skipping, chunk, start, end);
        if (newline === -1) {
          if (skipping.seen > this.#skipLimit) this.#fail(skipping.seen);
          return;
        }
        this.#skipping = undefined;
        start = newline + 1;
        const tail = skipping.tail.subarray(0, skipping.tailBytes);
        this.#handlers.oversized(skipping.head, skipping.seen, tail);
        continue;
      }
      if (this.#size + (end - start) > this.#max) {
        const head = this.#head(chunk, start, end);
        const tail = Buffer.allocUnsafe(FRAME_TAIL_BYTES);
        const skipping = { head, tail, tailBytes: 0, seen: this.#size };
        // The held start of the frame (at most the cap) feeds the tail as the chunks after it do.
        if (this.#size > 0) keepTail(skipping, this.#frame as Buffer, 0, this.#size);
        this.#skipping = skipping;
        this.#size = 0;
        continue;
      }
      if (newline === -1) {
        this.#keep(chunk, start, end);
        return;
      }
      let frame: Buffer;
      if (this.#size === 0) frame = chunk.subarray(start, end);
      else {
        this.#keep(chunk, start, end);
        frame = (this.#frame as Buffer).subarray(0, this.#size);
        this.#size = 0;
      }
      start = newline + 1;
      const trimmed = frame.at(-1) === 0x0d ? frame.subarray(0, -1) : frame;
      this.#handlers.line(trimmed);
    }
  }

  /** Drops the unfinished frame and the frame buffer (the connection is over). */
  dispose(): void {
    this.#size = 0;
    this.#skipping = undefined;
    this.#release();
  }

  /** A copy of the first bytes of the frame held so far followed by `chunk[start, end)`. */
  #head(chunk: Buffer, start: number, end: number): Buffer {
    const bytes = Math.min(FRAME_HEAD_BYTES, this.#size + (end - start));
    const head = Buffer.allocUnsafe(bytes);
    const held = Math.min(this.#size, bytes);
    if (held > 0) (this.#frame as Buffer).copy(head, 0, 0, held);
    if (held < bytes) chunk.copy(head, held, start, start + (bytes - held));
    return head;
  }

  /** Appends `chunk[start, end)` to the frame buffer (callers keep the total within the cap). */
  #keep(chunk: Buffer, start: number, end: number): void {
    const needed = this.#size + (end - start);
    let frame = this.#frame;
    if (frame === undefined || frame.length < needed) {
      let capacity = frame?.length ?? FIRST_FRAME_BUFFER_BYTES;
      while (capacity < needed) capacity *= 2;
      // Not the shared pool: the buffer is ours for many frames.
      const grown = Buffer.allocUnsafeSlow(Math.min(capacity, this.#max));
      if (frame !== undefined && this.#size > 0) frame.copy(grown, 0, 0, this.#size);
      this.#frame = frame = grown;
    }
    chunk.copy(frame, this.#size, start, end);
    this.#size = needed;
    if (frame.length > KEPT_FRAME_BUFFER_BYTES) {
      this.#frameUsed = true;
      if (this.#idleTimer === undefined) this.#watchIdle();
    }
  }

  /** Lets a big frame buffer go once a whole idle period passed without it being used. */
  #watchIdle(): void {
    this.#frameUsed = false;
    this.#idleTimer = setTimeout(() => {
      this.#idleTimer = undefined;
      if (this.#frameUsed || this.#size > 0) this.#watchIdle();
      else this.#release();
    }, FRAME_BUFFER_IDLE_MS);
    this.#idleTimer.unref?.();
  }

  #release(): void {
    if (this.#idleTimer !== undefined) clearTimeout(this.#idleTimer);
    this.#idleTimer = undefined;
    this.#frame = undefined;
    this.#frameUsed = false;
  }

  #fail(seen: number): void {
    this.#failed = true;
    this.#skipping = undefined;
    this.#size = 0;
    this.#release();
    this.#handlers.overflow(seen);
  }
}

/** Keeps the last {@link FRAME_TAIL_BYTES} of a skipped frame: the old tail shifted, then `[start, end)`. */
function keepTail(
  skipping: { tail: Buffer; tailBytes: number },
  chunk: Buffer,
  start: number,
  end: number,
): void {
  const { tail } = skipping;
  const adding = end - start;
  if (adding >= tail.length) {
    chunk.copy(tail, 0, end - tail.length, end);
    skipping.tailBytes = tail.length;
    return;
  }
  const kept = Math.min(skipping.tailBytes, tail.length - adding);
  if (kept > 0) tail.copy(tail, 0, skipping.tailBytes - kept, skipping.tailBytes);
  chunk.copy(tail, kept, start, end);
  skipping.tailBytes = kept + adding;
}

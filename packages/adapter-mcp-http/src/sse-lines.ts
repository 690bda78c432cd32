/**
 * Whole lines of an SSE byte stream, decoded once each.
 * @module
 */

const LF = 0x0a;
const CR = 0x0d;

/**
 * Decodes without a streaming state. A cut after a line break is always a character boundary in
 * UTF-8, so no character spans two decodes. `ignoreBOM`: a U+FEFF inside the stream is text; the
 * stream's own leading BOM is removed by {@link SseLines} as bytes.
 */
const decoder = new TextDecoder('utf-8', { ignoreBOM: true });

/**
 * Cuts an SSE byte stream after its last line break and decodes whole lines only. The line still
 * arriving is kept as bytes and decoded once, when it ends.
 *
 * Why not a streaming `TextDecoder`: on Node 20, `decode(chunk, { stream: true })` goes through
 * ICU and costs about 5 times a whole decode. Reading a 4 MiB event in 64 KiB chunks that way
 * held the event loop for 30–40 ms at a time; with whole lines, an event over the cap is refused
 * without being decoded at all, and a big one is decoded in one pass.
 *
 * It keeps every byte it is given until a line break arrives: the caller caps the bytes of one
 * event.
 */
export class SseLines {
  #held: Buffer[] = [];
  #heldBytes = 0;
  #atStart = true;

  /** Bytes received after the last line break, kept until their line ends. */
  get heldBytes(): number {
    return this.#heldBytes;
  }

  /**
   * The text of the lines that `chunk` completes, line breaks included; '' when it completes none.
   * A trailing CR is given out too: the parser itself joins it with an LF that follows.
   */
  push(chunk: Uint8Array): string {
    const bytes = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    const cut = Math.max(bytes.lastIndexOf(LF), bytes.lastIndexOf(CR)) + 1;
    if (cut === 0) {
      this.#hold(bytes);
      return '';
    }
    const text = this.#decode(bytes.subarray(0, cut));
    if (cut < bytes.length) this.#hold(bytes.subarray(cut));
    return text;
  }

  /** The rest of the stream, at its end: an unfinished line, which the parser then drops. */
  end(): string {
    return this.#heldBytes === 0 ? '' : this.#decode(Buffer.alloc(0));
  }

  #hold(bytes: Buffer): void {
    // The chunk is the stream's own and is not reused by it, so a view of it is kept, not a copy.
    this.#held.push(bytes);
    this.#heldBytes += bytes.byteLength;
  }

  /** Decodes the held bytes followed by `tail`, and holds nothing after. */
  #decode(tail: Buffer): string {
    let bytes = tail;
    if (this.#heldBytes > 0) {
      this.#held.push(tail);
      bytes = Buffer.concat(this.#held, this.#heldBytes + tail.byteLength);
      this.#held = [];
      this.#heldBytes = 0;
    }
    if (this.#atStart) {
      this.#atStart = false;
      // The stream's leading UTF-8 BOM is not part of its first line (WHATWG SSE).
      if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) bytes = bytes.subarray(3);
    }
    return decoder.decode(bytes);
  }
}

/**
 * Incremental `text/event-stream` decoding: bytes in, one `data` payload per event out.
 * @module
 */

/** Splits SSE bytes into event data payloads; multi-line `data:` fields join with `\n`. */
export class SseDecoder {
  readonly #decoder = new TextDecoder();
  #buffer = '';
  #data: string[] = [];

  /** Feeds a chunk; returns the payloads of every event it completed. */
  push(chunk: Uint8Array): string[] {
    this.#buffer += this.#decoder.decode(chunk, { stream: true });
    return this.#drain(false);
  }

  /** Flushes a final event that was not followed by a blank line. */
  end(): string[] {
    this.#buffer += this.#decoder.decode();
    return this.#drain(true);
  }

  #drain(final: boolean): string[] {
    const out: string[] = [];
    let newline = this.#buffer.search(/\r\n|\r|\n/);
    while (newline !== -1) {
      const line = this.#buffer.slice(0, newline);
      const width = this.#buffer.startsWith('\r\n', newline) ? 2 : 1;
      this.#buffer = this.#buffer.slice(newline + width);
      this.#line(line, out);
      newline = this.#buffer.search(/\r\n|\r|\n/);
    }
    if (final) {
      if (this.#buffer !== '') this.#line(this.#buffer, out);
      this.#buffer = '';
      this.#line('', out);
    }
    return out;
  }

  #line(line: string, out: string[]): void {
    if (line === '') {
      if (this.#data.length > 0) out.push(this.#data.join('\n'));
      this.#data = [];
      return;
    }
    if (line.startsWith(':')) return;
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'data') this.#data.push(value);
  }
}

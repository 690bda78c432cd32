import { afterEach, describe, expect, it, vi } from 'vitest';
import { BodyTooLarge, readSse } from './body-reader.js';
import { SseLines } from './sse-lines.js';

const bytes = (text: string) => new TextEncoder().encode(text);

/** A body that delivers `chunks` one read at a time. */
function body(chunks: Uint8Array[]): ReadableStream<Uint8Array> {
  let next = 0;
  return new ReadableStream({
    pull(controller) {
      const chunk = chunks[next++];
      if (chunk === undefined) controller.close();
      else controller.enqueue(chunk);
    },
  });
}

/** Splits `data` into chunks of `size` bytes, cutting through characters and line breaks alike. */
function slices(data: Uint8Array, size: number): Uint8Array[] {
  const out: Uint8Array[] = [];
  for (let at = 0; at < data.byteLength; at += size) out.push(data.slice(at, at + size));
  return out;
}

async function events(chunks: Uint8Array[], limit = 1024 * 1024): Promise<string[]> {
  const seen: string[] = [];
  await readSse(body(chunks), {
    limit,
    onEvent: (event) => {
      seen.push(`${event.event ?? 'message'}:${event.data}`);
      return false;
    },
  });
  return seen;
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe('SseLines', () => {
  it('gives out the lines a chunk completes and keeps the rest as bytes', () => {
    const lines = new SseLines();
    expect(lines.push(bytes('data: a'))).toBe('');
    expect(lines.heldBytes).toBe(7);
    expect(lines.push(bytes('bc\ndata: d'))).toBe('data: abc\n');
    expect(lines.heldBytes).toBe(7);
    expect(lines.end()).toBe('data: d');
    expect(lines.heldBytes).toBe(0);
  });

  it('decodes a character cut between chunks whole', () => {
    const lines = new SseLines();
    const data = bytes('data: é€😀\n');
    const text = slices(data, 1)
      .map((chunk) => lines.push(chunk))
      .join('');
    expect(text).toBe('data: é€😀\n');
  });

  it("removes the stream's leading BOM, even cut between chunks, and keeps a later U+FEFF", () => {
    const lines = new SseLines();
    const text = [bytes('\uFEFF').slice(0, 1), bytes('\uFEFF').slice(1), bytes('data: \uFEFFx\n')]
      .map((chunk) => lines.push(chunk))
      .join('');
    expect(text).toBe('data: \uFEFFx\n');
  });

  it('decodes a long line once, when it ends, not chunk by chunk', () => {
    const decode = vi.spyOn(TextDecoder.prototype, 'decode');
    const lines = new SseLines();
    const line = bytes(`data: ${'x'.repeat(256 * 1024)}\n`);
    const text = slices(line, 16 * 1024)
      .map((chunk) => lines.push(chunk))
      .join('');
    expect(text).toBe(new TextDecoder().decode(line));
    // The spy also counts the check's own decode above.
    expect(decode).toHaveBeenCalledTimes(2);
  });
});

describe('readSse', () => {
  it('reads events whose bytes are cut anywhere: in characters, in CRLF, in field names', async () => {
    const stream = bytes(
      '\uFEFFevent: note\r\ndata: caf\u00e9\r\ndata: 😀\r\n\r\n: keep-alive\n\ndata: two\r\rdata: three\n\n',
    );
    const whole = await events([stream]);
    expect(whole).toEqual(['note:café\n😀', 'message:two', 'message:three']);
    for (const size of [1, 2, 3, 5, 7]) expect(await events(slices(stream, size))).toEqual(whole);
  });

  it('refuses an event over the cap before its line ends, without decoding it', async () => {
    const decode = vi.spyOn(TextDecoder.prototype, 'decode');
    const chunks = [bytes('data: "'), ...slices(bytes('x'.repeat(64 * 1024)), 4096)];
    await expect(events(chunks, 32 * 1024)).rejects.toBeInstanceOf(BodyTooLarge);
    expect(decode).not.toHaveBeenCalled();
  });

  it('caps each event, not the stream: events below the cap pass however many there are', async () => {
    const event = `data: ${'y'.repeat(900)}\n\n`;
    const seen = await events(slices(bytes(event.repeat(40)), 1000), 1024);
    expect(seen).toHaveLength(40);
    // All 40 in one read of 36 KB.
    expect(await events([bytes(event.repeat(40))], 1024)).toHaveLength(40);
  });

  it('refuses an event over the cap that arrives whole in one read, counting its bytes', async () => {
    // 600 characters, 1,200 bytes.
    const big = `data: ${'é'.repeat(600)}\n\n`;
    await expect(events([bytes(`data: small\n\n${big}`)], 1024)).rejects.toBeInstanceOf(
      BodyTooLarge,
    );
    await expect(events([bytes(`data: ${'é'.repeat(500)}\n\n`)], 1024)).resolves.toHaveLength(1);
  });

  it('counts the bytes held after an event toward the next one', async () => {
    // One read completes an event and starts a line of 900 bytes; the next read adds 200. In
    // characters (the parser's own count) the line is only 553 long.
    const first = bytes(`data: a\n\ndata: ${'é'.repeat(447)}`);
    const second = bytes('é'.repeat(100));
    await expect(events([first, second], 1024)).rejects.toBeInstanceOf(BodyTooLarge);
  });

  it('stops reading at the event it waited for', async () => {
    const seen: string[] = [];
    const stopped = await readSse(body([bytes('data: 1\n\ndata: 2\n\n'), bytes('data: 3\n\n')]), {
      limit: 1024,
      onEvent: (event) => {
        seen.push(event.data);
        return event.data === '2';
      },
    });
    expect(stopped).toBe(true);
    expect(seen).toEqual(['1', '2']);
  });

  it('drops an unfinished event at the end of the stream', async () => {
    expect(await events([bytes('data: 1\n\ndata: half')])).toEqual(['message:1']);
  });
});

import { afterEach, describe, expect, it } from 'vitest';
import { BodyTooLarge, readBoundedText, readSse } from './body-reader.js';

const KiB = 1024;
const CHUNK = 64 * KiB;

/**
 * Counts turns of the event loop: one per check phase, as long as it runs. A read whose chunks
 * all resolve through promise reactions sees the same count throughout, however many it reads.
 */
class TurnCounter {
  turns = 0;
  #stopped = false;

  constructor() {
    const tick = () => {
      if (this.#stopped) return;
      this.turns++;
      setImmediate(tick);
    };
    setImmediate(tick);
  }

  stop(): void {
    this.#stopped = true;
  }
}

let counter: TurnCounter | undefined;
afterEach(() => {
  counter?.stop();
  counter = undefined;
});

/**
 * A body whose every chunk is ready at once, as fetch's is while the socket has data buffered,
 * noting for each chunk pulled the turn it was pulled in.
 */
function readyBody(chunks: Uint8Array[], turnsSeen: number[]): ReadableStream<Uint8Array> {
  let next = 0;
  return new ReadableStream({
    pull(controller) {
      turnsSeen.push(counter?.turns ?? 0);
      const chunk = chunks[next++];
      if (chunk === undefined) controller.close();
      else controller.enqueue(chunk);
    },
  });
}

/** The most bytes pulled within one turn of the loop. */
function mostBytesInOneTurn(turnsSeen: number[], chunkBytes: number): number {
  const perTurn = new Map<number, number>();
  for (const turn of turnsSeen) perTurn.set(turn, (perTurn.get(turn) ?? 0) + chunkBytes);
  return Math.max(...perTurn.values());
}

function filled(count: number, byte: number): Uint8Array[] {
  return Array.from({ length: count }, () => new Uint8Array(CHUNK).fill(byte));
}

describe('the body readers take turns with the event loop', () => {
  it('readBoundedText reads a body that is all there in turns of at most 256 KiB, exactly', async () => {
    counter = new TurnCounter();
    const turnsSeen: number[] = [];
    // 2 MiB of 'a' in 64 KiB chunks, all ready.
    const text = await readBoundedText(readyBody(filled(32, 0x61), turnsSeen), 4 * 1024 * KiB);
    expect(text.length).toBe(2 * 1024 * KiB);
    expect(/^a+$/.test(text)).toBe(true);
    expect(new Set(turnsSeen).size).toBeGreaterThanOrEqual(8);
    expect(mostBytesInOneTurn(turnsSeen, CHUNK)).toBeLessThanOrEqual(256 * KiB + CHUNK);
  });

  it('readBoundedText still refuses at the cap', async () => {
    counter = new TurnCounter();
    const body = readyBody(filled(32, 0x61), []);
    await expect(readBoundedText(body, 1024 * KiB)).rejects.toBeInstanceOf(BodyTooLarge);
  });

  it('readSse reads an event line that never ends in turns, and refuses it at the cap', async () => {
    counter = new TurnCounter();
    const turnsSeen: number[] = [];
    const head = new TextEncoder().encode('event: message\ndata: "');
    const chunks = [head, ...filled(64, 0x78)];
    const read = readSse(readyBody(chunks, turnsSeen), {
      limit: 2 * 1024 * KiB,
      onEvent: () => false,
    });
    await expect(read).rejects.toBeInstanceOf(BodyTooLarge);
    // Refused just past 2 MiB: 33 chunks of the line, read in several turns.
    expect(turnsSeen.length).toBeLessThanOrEqual(36);
    expect(new Set(turnsSeen).size).toBeGreaterThanOrEqual(8);
    expect(mostBytesInOneTurn(turnsSeen, CHUNK)).toBeLessThanOrEqual(256 * KiB + 2 * CHUNK);
  });

  it('readSse delivers every event of a long ready stream, in order, across turns', async () => {
    counter = new TurnCounter();
    const turnsSeen: number[] = [];
    // 2,000 events of about 1 KiB, cut into 64 KiB chunks through lines and characters.
    const all = new TextEncoder().encode(
      Array.from({ length: 2000 }, (_, i) => `data: ${i} ${'é'.repeat(500)}\n\n`).join(''),
    );
    const chunks: Uint8Array[] = [];
    for (let at = 0; at < all.byteLength; at += CHUNK) chunks.push(all.slice(at, at + CHUNK));
    const seen: number[] = [];
    const stopped = await readSse(readyBody(chunks, turnsSeen), {
      limit: 4 * KiB,
      onEvent: (event) => {
        seen.push(Number(event.data.split(' ')[0]));
        return false;
      },
    });
    expect(stopped).toBe(false);
    expect(seen).toEqual(Array.from({ length: 2000 }, (_, i) => i));
    expect(new Set(turnsSeen).size).toBeGreaterThanOrEqual(4);
    expect(mostBytesInOneTurn(turnsSeen, CHUNK)).toBeLessThanOrEqual(256 * KiB + CHUNK);
  });
});

import { describe, expect, it } from 'vitest';
import { FRAME_HEAD_BYTES, LineDecoder } from './line-decoder.js';

function decode(max: number, chunks: string[], skipLimit = Infinity) {
  const lines: string[] = [];
  const overflows: number[] = [];
  const oversized: { head: string; bytes: number }[] = [];
  const decoder = new LineDecoder(
    max,
    {
      line: (bytes) => lines.push(bytes.toString('utf8')),
      oversized: (head, bytes) => oversized.push({ head: head.toString('utf8'), bytes }),
      overflow: (seen) => overflows.push(seen),
    },
    skipLimit,
  );
  let peak = 0;
  for (const chunk of chunks) {
    decoder.push(Buffer.from(chunk, 'utf8'));
    peak = Math.max(peak, decoder.buffered);
  }
  return { lines, overflows, oversized, peak, decoder };
}

describe('LineDecoder', () => {
  it('splits frames across and within chunks and strips CR', () => {
    const { lines } = decode(100, ['{"a":', '1}\n{"b":2}\r\n{"c"', ':3}\n\n']);
    expect(lines).toEqual(['{"a":1}', '{"b":2}', '{"c":3}', '']);
  });

  it('accepts a frame of exactly the cap', () => {
    const { lines, overflows } = decode(10, ['0123456789\n']);
    expect(lines).toEqual(['0123456789']);
    expect(overflows).toEqual([]);
  });

  it('skips an oversize frame to its newline holding nothing, keeps its head and goes on', () => {
    const chunk = 'x'.repeat(64 * 1024);
    const chunks = Array.from({ length: 100 }, () => chunk);
    const max = 1024 * 1024;
    const { lines, overflows, oversized, peak, decoder } = decode(max, [
      '{"id":7,"result":"',
      ...chunks,
      '"}\n{"after":1}\n',
    ]);
    expect(lines).toEqual(['{"after":1}']);
    expect(overflows).toEqual([]);
    expect(oversized).toHaveLength(1);
    expect(oversized[0]?.bytes).toBe(18 + 100 * chunk.length + 2);
    expect(oversized[0]?.head).toBe(`{"id":7,"result":"${'x'.repeat(FRAME_HEAD_BYTES - 18)}`);
    expect(peak).toBeLessThanOrEqual(max);
    expect(decoder.failed).toBe(false);
    expect(decoder.buffered).toBe(0);
  });

  it('ends the stream once a frame runs past the skip limit without a newline', () => {
    const chunk = 'x'.repeat(64 * 1024);
    const { lines, overflows, decoder } = decode(
      1024,
      [...Array.from({ length: 20 }, () => chunk), '\n{"after":1}\n'],
      512 * 1024,
    );
    expect(overflows).toHaveLength(1);
    expect(lines).toEqual([]);
    expect(decoder.failed).toBe(true);
  });

  it('counts bytes, not characters', () => {
    const { oversized } = decode(5, ['ééé\n']);
    expect(oversized).toHaveLength(1);
  });
});

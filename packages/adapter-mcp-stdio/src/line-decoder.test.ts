import { describe, expect, it } from 'vitest';
import { LineDecoder } from './line-decoder.js';

function decode(max: number, chunks: string[]) {
  const lines: string[] = [];
  const overflows: number[] = [];
  const decoder = new LineDecoder(max, {
    line: (bytes) => lines.push(bytes.toString('utf8')),
    overflow: (seen) => overflows.push(seen),
  });
  let peak = 0;
  for (const chunk of chunks) {
    decoder.push(Buffer.from(chunk, 'utf8'));
    peak = Math.max(peak, decoder.buffered);
  }
  return { lines, overflows, peak, decoder };
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

  it('reports an oversize frame once, as soon as it crosses the cap, holding at most the cap', () => {
    const chunk = 'x'.repeat(64 * 1024);
    const chunks = Array.from({ length: 100 }, () => chunk);
    const max = 1024 * 1024;
    const { lines, overflows, peak, decoder } = decode(max, [...chunks, '\n{"after":1}\n']);
    expect(lines).toEqual([]);
    expect(overflows).toHaveLength(1);
    expect(overflows[0]).toBeGreaterThan(max);
    expect(peak).toBeLessThanOrEqual(max);
    expect(decoder.failed).toBe(true);
    expect(decoder.buffered).toBe(0);
  });

  it('counts bytes, not characters', () => {
    const { overflows } = decode(5, ['ééé\n']);
    expect(overflows).toHaveLength(1);
  });
});

import { afterEach, describe, expect, it, vi } from 'vitest';
import { FRAME_HEAD_BYTES, FRAME_TAIL_BYTES, LineDecoder } from './line-decoder.js';

function decode(max: number, chunks: string[], skipLimit = Infinity) {
  const lines: string[] = [];
  const overflows: number[] = [];
  const oversized: { head: string; bytes: number; tail: string }[] = [];
  const decoder = new LineDecoder(
    max,
    {
      line: (bytes) => lines.push(bytes.toString('utf8')),
      oversized: (head, bytes, tail) =>
        oversized.push({ head: head.toString('utf8'), bytes, tail: tail.toString('utf8') }),
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

  it('keeps the last bytes of a skipped frame, across chunks of any size', () => {
    const end = '","jsonrpc":"2.0","id":"req-7"}';
    const body = 'y'.repeat(2048) + end;
    // Chunks smaller than the tail, one that straddles the cap, and the frame's start held before.
    const chunks = ['{"result":{"data":"', ...body.match(/[\s\S]{1,100}/g)!, '\r\n{"after":1}\n'];
    const { lines, oversized } = decode(1024, chunks);
    expect(lines).toEqual(['{"after":1}']);
    expect(oversized).toHaveLength(1);
    const whole = `{"result":{"data":"${body}\r`;
    expect(oversized[0]?.bytes).toBe(whole.length);
    expect(oversized[0]?.tail).toBe(whole.slice(-FRAME_TAIL_BYTES));
    // One chunk bigger than the tail.
    const [big] = decode(1024, [`{"result":"${'z'.repeat(4096)}${end}\n`]).oversized;
    expect(big?.tail).toBe(`{"result":"${'z'.repeat(4096)}${end}`.slice(-FRAME_TAIL_BYTES));
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

  it('keeps no chunk: one reused read buffer decodes like fresh ones', () => {
    const lines: string[] = [];
    const decoder = new LineDecoder(1024, {
      line: (bytes) => lines.push(bytes.toString('utf8')),
      oversized: () => undefined,
      overflow: () => undefined,
    });
    const read = Buffer.alloc(8);
    const text = '{"a":1}\n{"bb":22}\n{"c":"0123456789abcdef"}\nx\n';
    for (let at = 0; at < text.length; at += read.length) {
      const piece = text.slice(at, at + read.length);
      read.fill(0x21);
      const length = read.write(piece, 'utf8');
      decoder.push(read, length);
    }
    expect(lines).toEqual(['{"a":1}', '{"bb":22}', '{"c":"0123456789abcdef"}', 'x']);
  });

  describe('frame buffer', () => {
    afterEach(() => {
      vi.useRealTimers();
    });

    function flood(decoder: LineDecoder, frames: number, frameBytes: number): void {
      const read = Buffer.alloc(64 * 1024, 0x78);
      for (let frame = 0; frame < frames; frame++) {
        for (let left = frameBytes; left > 0; left -= read.length) {
          decoder.push(read, Math.min(left, read.length));
        }
        decoder.push(Buffer.from('\n'));
      }
    }

    it('is reused across big frames, never past the cap, and let go once idle', () => {
      vi.useFakeTimers();
      const max = 1024 * 1024;
      let lines = 0;
      let skipped = 0;
      const decoder = new LineDecoder(max, {
        line: () => lines++,
        oversized: () => skipped++,
        overflow: () => undefined,
      });
      flood(decoder, 3, 700 * 1024);
      const retained = decoder.retained;
      expect(retained).toBeGreaterThanOrEqual(700 * 1024);
      flood(decoder, 4, max + 1);
      expect([lines, skipped]).toEqual([3, 4]);
      expect(decoder.retained).toBeLessThanOrEqual(max);
      vi.advanceTimersByTime(1_000);
      flood(decoder, 1, 200 * 1024);
      // Used within the idle period: kept through the next one.
      vi.advanceTimersByTime(2_500);
      expect(decoder.retained).toBeGreaterThan(0);
      vi.advanceTimersByTime(2_500);
      expect(decoder.retained).toBe(0);
      flood(decoder, 1, 100 * 1024);
      expect(lines).toBe(5);
    });

    it('keeps a small one for good, and drops all on dispose', () => {
      vi.useFakeTimers();
      const decoder = new LineDecoder(1024 * 1024, {
        line: () => undefined,
        oversized: () => undefined,
        overflow: () => undefined,
      });
      decoder.push(Buffer.from('{"a":'));
      decoder.push(Buffer.from('1}\n'));
      expect(decoder.retained).toBeGreaterThan(0);
      expect(decoder.retained).toBeLessThanOrEqual(64 * 1024);
      vi.advanceTimersByTime(60_000);
      expect(decoder.retained).toBeGreaterThan(0);
      decoder.dispose();
      expect(decoder.retained).toBe(0);
    });
  });
});

import { describe, expect, it } from 'vitest';
import { SseDecoder } from './sse-decoder.js';

const bytes = (text: string) => new TextEncoder().encode(text);

describe('SseDecoder', () => {
  it('joins events split across chunks, skips comments and joins multi-line data', () => {
    const decoder = new SseDecoder();
    expect(decoder.push(bytes(': keep-alive\n\ndata: {"a"'))).toEqual([]);
    expect(decoder.push(bytes(':1}\r\n\r\nevent: x\ndata: one\ndata: two\n\n'))).toEqual([
      '{"a":1}',
      'one\ntwo',
    ]);
    expect(decoder.push(bytes('data: tail'))).toEqual([]);
    expect(decoder.end()).toEqual(['tail']);
  });

  it('keeps multi-byte characters split across chunks intact', () => {
    const decoder = new SseDecoder();
    const all = bytes('data: héllo\n\n');
    expect([...decoder.push(all.slice(0, 8)), ...decoder.push(all.slice(8))]).toEqual(['héllo']);
  });
});

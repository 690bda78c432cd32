import { describe, expect, it } from 'vitest';
import { foldResult } from './fold-result.js';

const WHOLE = '"clat call mcp_big_lines"';

describe('foldResult', () => {
  it('keeps a result that fits, with or without a last newline', () => {
    const text = Array.from({ length: 40 }, (_, i) => `line ${i}`).join('\n');
    expect(foldResult(text, WHOLE)).toBe(text);
    expect(foldResult(`${text}\n`, WHOLE)).toBe(`${text}\n`);
  });

  it('counts the lines left out whether or not the result ends in a newline', () => {
    const lines = (n: number) => Array.from({ length: n }, (_, i) => `line ${i}`).join('\n');
    expect(foldResult(lines(41), WHOLE).split('\n').at(-1)).toBe(
      '… 1 more line not shown; "clat call mcp_big_lines" prints the whole result',
    );
    expect(
      foldResult(`${lines(42)}\n`, WHOLE)
        .split('\n')
        .at(-1),
    ).toBe('… 2 more lines not shown; "clat call mcp_big_lines" prints the whole result');
  });

  it('shows the first 40 of many lines and counts the rest', () => {
    const text = Array.from({ length: 5_000 }, (_, i) => `line ${i}`).join('\n');
    const folded = foldResult(text, WHOLE).split('\n');
    expect(folded.slice(0, 40)).toEqual(Array.from({ length: 40 }, (_, i) => `line ${i}`));
    expect(folded[40]).toBe(
      '… 4,960 more lines not shown; "clat call mcp_big_lines" prints the whole result',
    );
    expect(folded).toHaveLength(41);
  });

  it('cuts one long line at 4,000 characters, never inside a character', () => {
    const folded = foldResult('x'.repeat(20_000), WHOLE);
    expect(folded).toBe(
      `${'x'.repeat(4_000)}…\n… 16,000 more characters not shown; "clat call mcp_big_lines" prints the whole result`,
    );
    const emoji = foldResult(`${'x'.repeat(3_999)}😀${'y'.repeat(100)}`, WHOLE);
    expect(emoji.startsWith(`${'x'.repeat(3_999)}…\n`)).toBe(true);
  });
});

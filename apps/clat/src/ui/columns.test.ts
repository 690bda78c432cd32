import { describe, expect, it } from 'vitest';
import { columnsOf, fitLine, padColumns, statusLine } from './columns.js';

/** Half of a surrogate pair on its own (`String#isWellFormed` is ES2024, past this lib). */
const LONE_SURROGATE = /\p{Surrogate}/u;

describe('columns', () => {
  it('counts terminal columns: wide CJK and emoji two, marks and joiners none', () => {
    expect(columnsOf('plain text')).toBe(10);
    expect(columnsOf('漢字')).toBe(4);
    expect(columnsOf('a😀')).toBe(3);
    expect(columnsOf('e\u0301')).toBe(1);
    expect(columnsOf('\u200d')).toBe(0);
  });

  it('pads by columns, so a CJK name keeps the next column aligned', () => {
    expect(padColumns('a漢字😀', 8)).toBe('a漢字😀 ');
    expect(columnsOf(padColumns('a漢字😀', 8))).toBe(columnsOf(padColumns('abcdefg', 8)));
    expect(padColumns('longer than', 4)).toBe('longer than');
  });

  it('cuts a line by columns without splitting a surrogate pair or an escape', () => {
    // Terminal audit: `slice(0, 80)` left half an emoji (U+FFFD on screen) or `\u202`.
    const emoji = fitLine(`${'x'.repeat(79)}😀 tail`, 80);
    expect(emoji).toBe(`${'x'.repeat(79)}…`);
    expect(emoji).not.toMatch(LONE_SURROGATE);
    expect(fitLine(`${'y'.repeat(75)}\u202etail`, 80)).toBe(`${'y'.repeat(75)}…`);
    expect(fitLine(`${'y'.repeat(70)}\u202etail`, 80)).toBe(`${'y'.repeat(70)}\\u202etail`);
    expect(columnsOf(fitLine('漢'.repeat(100), 80))).toBeLessThanOrEqual(80);
    expect(fitLine('short\tline', 80)).toBe('short line');
  });

  it('cuts a status line to one column less than its terminal', () => {
    const long = '進捗メッセージ'.repeat(20);
    expect(columnsOf(statusLine(long, { columns: 40 }))).toBeLessThanOrEqual(39);
    expect(statusLine('fits', { columns: 40 })).toBe('fits');
    expect(columnsOf(statusLine('z'.repeat(500), {}))).toBe(79);
  });
});

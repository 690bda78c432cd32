import { describe, expect, it } from 'vitest';
import { jsonDepthExceeds, utf8Length, utf8LengthLoop } from './json.js';

describe('jsonDepthExceeds', () => {
  it('measures nesting without recursion, even 100,000 levels deep', () => {
    const deep = JSON.parse(`${'['.repeat(100_000)}${']'.repeat(100_000)}`);
    expect(jsonDepthExceeds(deep, 512)).toBe(true);
    expect(jsonDepthExceeds(deep, 100_000)).toBe(false);
  });

  it('counts arrays and objects; scalars have depth 0', () => {
    expect(jsonDepthExceeds('text', 0)).toBe(false);
    expect(jsonDepthExceeds(undefined, 0)).toBe(false);
    expect(jsonDepthExceeds({}, 0)).toBe(true);
    expect(jsonDepthExceeds({ a: [1, { b: 2 }] }, 3)).toBe(false);
    expect(jsonDepthExceeds({ a: [1, { b: 2 }] }, 2)).toBe(true);
  });
});

describe('utf8Length', () => {
  const samples = [
    '',
    'ascii',
    'é',
    '€uro',
    '😀',
    'a\uD800',
    '\uDC00b',
    'x\uD800',
    'ü'.repeat(1000),
  ];

  it('counts what Buffer would encode, natively and with the portable loop', () => {
    for (const text of samples) {
      expect(utf8Length(text)).toBe(Buffer.byteLength(text, 'utf8'));
      expect(utf8LengthLoop(text)).toBe(Buffer.byteLength(text, 'utf8'));
    }
  });
});

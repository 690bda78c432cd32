import { describe, expect, it } from 'vitest';
import { DEFAULT_JSON_STYLE, formatJson, jsonStyleOf } from './json-style.js';

describe('jsonStyleOf', () => {
  it.each([
    ['two spaces, LF', '{\n  "a": 1\n}\n', { indent: '  ', eol: '\n' }],
    ['four spaces, CRLF', '{\r\n    "a": 1\r\n}\r\n', { indent: '    ', eol: '\r\n' }],
    ['tabs', '{\n\t"a": {\n\t\t"b": 1\n\t}\n}', { indent: '\t', eol: '\n' }],
    ['one line', '{"a":1}', DEFAULT_JSON_STYLE],
    [
      'more than JSON.stringify takes',
      `{\n${' '.repeat(12)}"a": 1\n}`,
      { indent: ' '.repeat(10), eol: '\n' },
    ],
  ])('%s', (_name, text, style) => {
    expect(jsonStyleOf(text)).toEqual(style);
  });
});

describe('formatJson', () => {
  it('writes CRLF outside strings only (a newline in a string stays escaped)', () => {
    expect(formatJson({ a: 'x\ny' }, { indent: '\t', eol: '\r\n' })).toBe(
      '{\r\n\t"a": "x\\ny"\r\n}\r\n',
    );
  });
});

import { describe, expect, it } from 'vitest';
import { describeJsonSyntaxError } from './json-syntax-error.js';

const SECRET = 'sk-proj-AbCdEfGh123456';

function v8Position(text: string): number | undefined {
  try {
    JSON.parse(text);
  } catch (error) {
    const match = / at position (\d+)/.exec((error as Error).message);
    return match === null ? undefined : Number(match[1]);
  }
  throw new Error(`${text} parsed`);
}

describe('describeJsonSyntaxError', () => {
  it.each([
    [`{"a": 1, "apiKey": ${SECRET}}`, 'unexpected character at line 1, column 20'],
    [
      `{\n  "provider": {\n    "apiKey": "${SECRET}" "x": 1\n  }\n}`,
      "expected ',' or '}' at line 3, column 40",
    ],
    [`{"apiKey": "${SECRET}`, 'unexpected end of input at line 1, column 35'],
    [`{"apiKey": "${SECRET}\n"}`, 'control character in a string at line 1, column 35'],
    [`{"apiKey": "${SECRET}\\x"}`, 'invalid escape in a string at line 1, column 35'],
    [`{"apiKey": "\\u12g4"}`, 'invalid \\u escape in a string at line 1, column 13'],
    ['[1,]', 'unexpected character at line 1, column 4'],
    ['{"a":01}', "expected ',' or '}' at line 1, column 7"],
    ['{"a":-}', 'invalid number at line 1, column 7'],
    ['{"a":1.}', 'invalid number at line 1, column 8'],
    ['{"a":1e}', 'invalid number at line 1, column 8'],
    ['{"a" 1}', "expected ':' after a property name at line 1, column 6"],
    ['{,}', 'expected a double-quoted property name at line 1, column 2'],
    ['{"a":1,}', 'expected a double-quoted property name at line 1, column 8'],
    ['{"a":tru}', 'unexpected character at line 1, column 6'],
    ['{} x', 'unexpected text after the JSON value at line 1, column 4'],
    ['\ufeff{}', 'unexpected character at line 1, column 1'],
    ['', 'unexpected end of input at line 1, column 1'],
    ['{\r\n  "a": [1, 2\r\n', 'unexpected end of input at line 3, column 1'],
  ])('locates the error in %j without quoting it', (text, expected) => {
    expect(() => JSON.parse(text)).toThrow();
    const described = describeJsonSyntaxError(text);
    expect(described).toBe(expected);
    expect(described).not.toContain('sk-');
  });

  it.each([
    '{"a":1,',
    '{,}',
    '{"a":01}',
    '{"a":1}x',
    '{"a":"b\n"}',
    '{"apiKey":"sk-proj-abcdefghijklmnop" "x":1}',
    '[[[[1]]]',
    '{"a":{"b":[1,2,{"c":true}]},"d":[]]',
  ])('agrees with V8 on where %j goes wrong', (text) => {
    const position = v8Position(text);
    expect(position).toBeDefined();
    expect(describeJsonSyntaxError(text)).toMatch(new RegExp(`column ${(position ?? 0) + 1}$`));
  });

  it('reads valid nested values to the end, however deep', () => {
    const deep = `${'['.repeat(200_000)}${']'.repeat(200_000)}`;
    expect(describeJsonSyntaxError(`${deep}]`)).toBe(
      'unexpected text after the JSON value at line 1, column 400001',
    );
    expect(
      describeJsonSyntaxError('{"a": [1, -2.5e+3, "x\\"\\u00e9", true, false, null, {}]}'),
    ).toBe('not valid JSON');
  });
});

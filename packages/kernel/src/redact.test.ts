import { describe, expect, it } from 'vitest';
import { LineTail, Redactor, redactSecrets } from './redact.js';

describe('redactSecrets', () => {
  it.each([
    ['Authorization: Bearer abcdefgh12345', 'Authorization: Bearer [REDACTED]'],
    ['bearer\tZZZZZZZZZZ', 'bearer\t[REDACTED]'],
    ['key sk-ant-0123456789abcdef done', 'key [REDACTED] done'],
    ['OPENAI_API_KEY=sk-abcdef0123456789', 'OPENAI_API_KEY=[REDACTED]'],
    ['Z_AI_API_KEY=dummy000000', 'Z_AI_API_KEY=[REDACTED]'],
    ['"password": "hunter2hunter2"', '"password": "[REDACTED]"'],
    ['token=abc', 'token=abc'],
    ['GITHUB ghp_0123456789abcdefghijklmn', 'GITHUB [REDACTED]'],
    ['https://user:s3cretpw@example.com/x', 'https://user:[REDACTED]@example.com/x'],
    ['aws AKIAIOSFODNN7EXAMPLE1 x', 'aws [REDACTED] x'],
    ['sts ASIAIOSFODNN7EXAMPLE y', 'sts [REDACTED] y'],
    ['nothing to see', 'nothing to see'],
  ])('%j', (input, expected) => {
    expect(redactSecrets(input)).toBe(expected);
  });

  it('redacts exact secrets, including the bare token of a header value', () => {
    const redactor = new Redactor();
    redactor.addHeaders({ Authorization: 'Bearer opaque-value-42', 'X-Key': 'qq11' });
    expect(redactor.redact('got opaque-value-42 and qq11')).toBe('got [REDACTED] and [REDACTED]');
  });
});

describe('LineTail', () => {
  it('keeps the last N non-blank lines, caps line length and redacts on read', () => {
    const tail = new LineTail(3, 10);
    tail.push('one\n\ntwo\nthree\nfou');
    tail.push('r\nBearer abcdefghijk\npartial');
    expect(tail.lines()).toEqual(['four', 'Bearer [RE…', 'partial']);
    expect(tail.lines().join()).not.toContain('abc');
    tail.end();
    tail.push('x'.repeat(50));
    expect(tail.lines().at(-1)).toBe(`${'x'.repeat(10)}…`);
    tail.end();
    expect(tail.lines()).toHaveLength(3);
  });
});

import { describe, expect, it } from 'vitest';
import { isSecretName, LineTail, Redactor, redactArgs, redactSecrets } from './redact.js';

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
    ['server --api-key abc123secret --port 8080', 'server --api-key [REDACTED] --port 8080'],
    ['--token tok-42 rest', '--token [REDACTED] rest'],
    ['run --password hunter2', 'run --password [REDACTED]'],
    ['-secret "s3cr3tval"', '-secret "[REDACTED]"'],
    ['--token-file /etc/x', '--token-file /etc/x'],
    ['Authorization: Token abc123', 'Authorization: Token [REDACTED]'],
    ['--header "Authorization: Bearer <token>"', '--header "Authorization: Bearer <token>"'],
    ['Authorization: <tok>en-abc123', 'Authorization: [REDACTED]'],
    ['"authorization": "Digest xyz789"', '"authorization": "Digest [REDACTED]"'],
    [
      'glm key 0123456789abcdef0123456789abcdef.AbCdEfGhIjKlMnOp failed',
      'glm key [REDACTED] failed',
    ],
    ['https://ghp_0123456789abcdef@github.com/x', 'https://[REDACTED]@github.com/x'],
    ['ssh://git@github.com/x', 'ssh://git@github.com/x'],
    [
      'https://h.example/mcp?api_key=k123&x=1&access_token=t456#f',
      'https://h.example/mcp?api_key=[REDACTED]&x=1&access_token=[REDACTED]#f',
    ],
    [
      'https://h.example/s3?X-Amz-Signature=abc&page=2',
      'https://h.example/s3?X-Amz-Signature=[REDACTED]&page=2',
    ],
    ['https://h.example/mcp?page=2&limit=5', 'https://h.example/mcp?page=2&limit=5'],
    // zod's message for an unknown field names the field: a schema error must show it.
    [
      'registry.json: (root): Unrecognized key: "futureField"',
      'registry.json: (root): Unrecognized key: "futureField"',
    ],
    // Only that exact form: a secret after another word, or a key shape, is still redacted.
    ['Unrecognized token: abcdefgh12345', 'Unrecognized token: [REDACTED]'],
    ['Unrecognized api_key: "abcdefgh12345"', 'Unrecognized api_key: "[REDACTED]"'],
    ['Unrecognized key: "sk-abcdef0123456789"', 'Unrecognized key: "[REDACTED]"'],
    ['recognized key: "abcdefgh12345"', 'recognized key: "[REDACTED]"'],
    ['API_KEY: "abcdefgh12345"', 'API_KEY: "[REDACTED]"'],
  ])('%j', (input, expected) => {
    expect(redactSecrets(input)).toBe(expected);
  });

  it('redacts exact secrets, including the bare token of a header value', () => {
    const redactor = new Redactor();
    redactor.addHeaders({ Authorization: 'Bearer opaque-value-42', 'X-Key': 'qq11' });
    expect(redactor.redact('got opaque-value-42 and qq11')).toBe('got [REDACTED] and [REDACTED]');
  });
});

describe('redactArgs', () => {
  it('redacts the value after a secret-named flag and key shapes in any argument', () => {
    expect(
      redactArgs(['--api-key', 'k1', '--port', '8080', '--token=abcdefgh1', 'sk-abcdef0123456789']),
    ).toEqual(['--api-key', '[REDACTED]', '--port', '8080', '--token=[REDACTED]', '[REDACTED]']);
  });
});

describe('isSecretName', () => {
  it('knows names that end like a secret, not names that only contain a word of one', () => {
    for (const name of [
      'GITHUB_PERSONAL_ACCESS_TOKEN',
      'NOTION_TOKEN',
      'OPENAI_API_KEY',
      'apiKey',
      'DB_PASSWORD',
      'CLIENT_SECRET',
      'SLACK_AUTH_TOKEN',
      'GOOGLE_CREDENTIALS',
      'ACME_KEY',
    ]) {
      expect(isSecretName(name), name).toBe(true);
    }
    for (const name of [
      'HOME',
      'PWD',
      'KEY_FILE',
      'TOKENIZER_MODEL',
      'ACME_REGION',
      'PORT',
      'SECRETARY_ID',
    ]) {
      expect(isSecretName(name), name).toBe(false);
    }
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

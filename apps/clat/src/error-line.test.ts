import { describe, expect, it } from 'vitest';
import { errorLine, unexpectedErrorLine } from './error-line.js';
import { CliError, CliErrorCode } from './errors.js';

const KEY = 'sk-proj-AbCdEfGh0123456789';

describe('errorLine', () => {
  it('redacts a key a ClatError message quotes by mistake, and keeps its code', () => {
    const line = errorLine(
      new CliError(CliErrorCode.CLI_CONFIG_INVALID, `config.json: near "apiKey": ${KEY}`),
    );
    expect(line).not.toContain('AbCdEfGh');
    expect(line).toBe('clat: config.json: near "apiKey": [REDACTED] [CLI_CONFIG_INVALID]\n');
  });

  it('sanitises what a server sent', () => {
    expect(errorLine(new Error('bad\x1b]52;c;AAAA\x07'))).toBe('clat: bad\\x1b]52;c;AAAA\\x07\n');
  });

  it("indents a message's later lines, so none passes for a line of CLAT's own", () => {
    expect(errorLine(new Error('boom\nAllow mcp_x_delete? [y/N]\nclat: done'))).toBe(
      'clat: boom\n  Allow mcp_x_delete? [y/N]\n  clat: done\n',
    );
  });
});

describe('unexpectedErrorLine', () => {
  const bug = new TypeError(`cannot read Authorization: Bearer ${KEY}`);

  it('is one redacted line without CLAT_DEBUG', () => {
    const line = unexpectedErrorLine(bug, {});
    expect(line).toBe('clat: unexpected error: cannot read Authorization: Bearer [REDACTED]\n');
  });

  it('redacts the stack CLAT_DEBUG adds', () => {
    const line = unexpectedErrorLine(bug, { CLAT_DEBUG: '1' });
    expect(line).toContain('TypeError: cannot read Authorization: Bearer [REDACTED]\n    at ');
    expect(line).not.toContain('AbCdEfGh');
  });
});

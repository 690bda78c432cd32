import { Redactor } from '@clat/kernel';
import { describe, expect, it } from 'vitest';
import { HttpFailures, networkReason } from './http-failures.js';

describe('networkReason', () => {
  it('prefers an error code anywhere in the cause chain', () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
    expect(networkReason(new TypeError('fetch failed', { cause: refused }))).toBe('ECONNREFUSED');
  });

  it("keeps fetch's inner reason when no cause has a code", () => {
    const failed = new TypeError('fetch failed', { cause: new Error('bad port') });
    expect(networkReason(failed)).toBe('fetch failed: bad port');
    expect(networkReason(new Error('plain'))).toBe('plain');
  });
});

describe('HttpFailures.status', () => {
  const failures = () => {
    const redactor = new Redactor();
    redactor.add('tok-0123456789abcdef');
    return new HttpFailures(new URL('http://127.0.0.1:9/mcp'), redactor, () => false, {
      headers: false,
      login: false,
    });
  };

  it('names, for a 401 or 403, only the credentials the transport sends', () => {
    const url = new URL('http://127.0.0.1:9/mcp');
    const hint = (headers: boolean, login: boolean, status: number) =>
      new HttpFailures(url, new Redactor(), () => false, { headers, login }).status(
        status,
        'tools/call (id 3)',
        undefined,
      ).message;
    expect(hint(true, false, 401)).toBe(
      'MCP server at http://127.0.0.1:9 answered tools/call (id 3) with HTTP 401 (check the configured headers)',
    );
    expect(hint(false, true, 403)).toBe(
      'MCP server at http://127.0.0.1:9 answered tools/call (id 3) with HTTP 403 (the server refused the token of its login: it may lack access, or log in again)',
    );
    expect(hint(true, true, 403)).toContain('(check the configured headers and the login)');
    expect(hint(false, false, 401)).toContain('(no credentials are configured for it)');
    expect(hint(true, true, 500)).toBe(
      'MCP server at http://127.0.0.1:9 answered tools/call (id 3) with HTTP 500',
    );
  });

  it("shows what an HTML error page says, not its markup (express's default 404)", () => {
    const page =
      '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n<title>Error</title>\n</head>\n<body>\n<pre>Cannot POST /mcp</pre>\n</body>\n</html>\n';
    expect(failures().status(404, 'initialize (id 2)', page).message).toBe(
      'MCP server at http://127.0.0.1:9 answered initialize (id 2) with HTTP 404: Cannot POST /mcp',
    );
  });

  it('keeps a plain or JSON body as it is, redacted and on one line', () => {
    expect(
      failures().status(400, 'tools/call (id 3)', 'bad <token> tok-0123456789abcdef\nsecond line')
        .message,
    ).toBe(
      'MCP server at http://127.0.0.1:9 answered tools/call (id 3) with HTTP 400: bad <token> [REDACTED] second line',
    );
  });
});

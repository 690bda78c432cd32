import { Redactor } from '@clat/kernel';
import { describe, expect, it } from 'vitest';
import { HttpFailures, networkReason } from './http-failures.js';

describe('networkReason', () => {
  it('prefers an error code anywhere in the cause chain', () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
    expect(networkReason(new TypeError('fetch failed', { cause: refused }))).toBe(
      'nothing is listening there (ECONNREFUSED)',
    );
    const closed = Object.assign(new Error('other side closed'), { code: 'UND_ERR_SOCKET' });
    expect(networkReason(new TypeError('fetch failed', { cause: closed }))).toBe(
      'the server closed the connection (UND_ERR_SOCKET)',
    );
    expect(networkReason(Object.assign(new Error('x'), { code: 'EWHATEVER' }))).toBe('EWHATEVER');
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

describe('HttpFailures.redirect', () => {
  const failures = new HttpFailures(
    new URL('http://127.0.0.1:9/mcp'),
    new Redactor(),
    () => false,
    {
      headers: false,
      login: false,
    },
  );
  const redirect = (location: string | undefined) =>
    failures.redirect(
      new Response(null, {
        status: 307,
        headers: location === undefined ? {} : { location },
      }),
      'initialize (id 1)',
    ).message;

  it('names where it points, origin and path only, so the person can update the URL', () => {
    expect(redirect('/v2/mcp?token=abc123')).toBe(
      "MCP server at http://127.0.0.1:9 redirected initialize (id 1) (HTTP 307) to http://127.0.0.1:9/v2/mcp; redirects are not followed so configured headers stay with the configured URL: if http://127.0.0.1:9/v2/mcp is the server's MCP endpoint, update the URL in mcp.json",
    );
    // A sign-in page is no MCP endpoint: pointing mcp.json at it would not help.
    for (const page of [
      'https://sso.example.com/login?next=x',
      'https://id.example/oauth2/authorize',
    ]) {
      expect(redirect(page)).toContain(
        'that looks like a sign-in page for a browser (single sign-on in front of the server), which an MCP client cannot use',
      );
    }
    expect(redirect('https://new.example/mcp#x')).toContain('to https://new.example/mcp;');
    expect(redirect(undefined)).toContain('to (no location);');
    expect(redirect('http://[bad')).toContain('to (an invalid location);');
  });
});

describe('HttpFailures.fetch', () => {
  const failed = (url: string, code: string) =>
    new HttpFailures(new URL(url), new Redactor(), () => false, {
      headers: false,
      login: false,
    }).fetch(
      new TypeError('fetch failed', { cause: Object.assign(new Error('ssl'), { code }) }),
      { jsonrpc: '2.0', id: 1, method: 'server/discover' },
      new AbortController(),
    ).message;

  it('says in words that an https URL meets a plain-http server, with the URL to use', () => {
    expect(failed('https://127.0.0.1:9/mcp?k=v', 'ERR_SSL_WRONG_VERSION_NUMBER')).toBe(
      'connection to MCP server at https://127.0.0.1:9 failed during server/discover (id 1): ERR_SSL_WRONG_VERSION_NUMBER; the server answered the TLS handshake with plain HTTP, so it likely speaks http: use http://127.0.0.1:9/mcp in the URL',
    );
    expect(failed('https://127.0.0.1:9/mcp', 'ECONNREFUSED')).toBe(
      'connection to MCP server at https://127.0.0.1:9 failed during server/discover (id 1): nothing is listening there (ECONNREFUSED)',
    );
  });
});

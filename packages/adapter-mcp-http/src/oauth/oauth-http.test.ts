import { describe, expect, it } from 'vitest';
import { checkEndpoint, oauthFailureText } from './oauth-http.js';

const REMOTE = 'https://mcp.example.com';
const LOCAL = 'http://127.0.0.1:8931';

describe('checkEndpoint', () => {
  it('accepts https anywhere remote, and plain http on loopback for a loopback server', () => {
    expect(
      checkEndpoint('https://auth.example.com/.well-known/x', 'resource_metadata', REMOTE).href,
    ).toBe('https://auth.example.com/.well-known/x');
    expect(checkEndpoint('https://10.0.0.5/token', 'token_endpoint', REMOTE).host).toBe('10.0.0.5');
    expect(checkEndpoint('http://127.0.0.1:9000/as', 'authorization server', LOCAL).port).toBe(
      '9000',
    );
    expect(
      checkEndpoint('http://localhost:9000/as', 'authorization server', 'http://[::1]:1').host,
    ).toBe('localhost:9000');
  });

  it('refuses plain http to a remote host', () => {
    expect(() => checkEndpoint('http://auth.example.com/x', 'token_endpoint', REMOTE)).toThrow(
      'token_endpoint http://auth.example.com of MCP server at https://mcp.example.com must use https (plain http only on a loopback host)',
    );
  });

  it('refuses a loopback endpoint named by a remote server (a request to a local service on its behalf)', () => {
    for (const target of [
      'http://127.0.0.1:6379/x',
      'https://localhost/x',
      'http://[::1]:80/x',
      'https://0.0.0.0/x',
    ]) {
      expect(() => checkEndpoint(target, 'resource_metadata', REMOTE)).toThrow(
        /^resource_metadata .* of MCP server at https:\/\/mcp\.example\.com is a loopback address, which only a server on a loopback address may name$/,
      );
    }
  });

  it('refuses a link-local endpoint (cloud instance metadata) unless the server is link-local too', () => {
    for (const origin of [REMOTE, LOCAL]) {
      expect(() =>
        checkEndpoint('https://169.254.169.254/latest/meta-data/', 'authorization server', origin),
      ).toThrow(/is a link-local address, which only a server on a link-local address may name$/);
    }
    expect(() => checkEndpoint('https://[fe80::1]/x', 'token_endpoint', REMOTE)).toThrow(
      /link-local/,
    );
    expect(
      checkEndpoint('https://169.254.1.2/as', 'authorization server', 'https://169.254.1.1').host,
    ).toBe('169.254.1.2');
  });
});

describe('oauthFailureText', () => {
  const failure = (fields: Record<string, unknown>) =>
    Object.assign(new Error('authorization response from the server is an error'), fields);

  it("names the code and the server's description, one line and bounded, else the library's text", () => {
    expect(
      oauthFailureText(
        failure({
          error: 'access_denied',
          error_description: 'You are not in\nthe "mcp" group\u001b[2J',
        }),
      ),
    ).toBe('access_denied: You are not in the "mcp" group [2J');
    expect(oauthFailureText(failure({ error: 'access_denied' }))).toBe(
      'access_denied: authorization response from the server is an error',
    );
    expect(
      oauthFailureText(failure({ error: 'invalid_grant', error_description: 'x'.repeat(500) })),
    ).toBe(`invalid_grant: ${'x'.repeat(200)}…`);
  });

  it('says what an unexpected status means instead of "not a conform response"', () => {
    const unexpected = (status: number) =>
      Object.assign(new Error('"response" is not a conform Token Endpoint response'), {
        cause: new Response('<h1>busy</h1>', { status }),
      });
    expect(oauthFailureText(unexpected(503))).toBe(
      'HTTP 503, the server is unavailable or failing',
    );
    expect(oauthFailureText(unexpected(404))).toBe('HTTP 404 without an OAuth error');
  });
});

/**
 * What `clat` says when a Streamable HTTP server fails in the ways people meet, through the real
 * binary: a server behind single sign-on redirects to its sign-in page, for which "update the URL
 * in mcp.json" (the advice before) would only point mcp.json at that page; a server that drops
 * the connection mid-call is said in words, not as undici's bare `UND_ERR_SOCKET`.
 */
import { describe, expect, it } from 'vitest';
import { startFaultServer, stopAllHttpFixtures } from '../fixtures/http-servers/spawn.js';
import { parseJsonOutput, useCliSandbox } from './support.js';

const sandbox = useCliSandbox(undefined, {
  teardown: async () => {
    await stopAllHttpFixtures();
  },
});

describe('HTTP failures in words', () => {
  it('names a sign-in page as one, and a dropped connection in words', async () => {
    const sso = await startFaultServer('redirect', undefined, {
      CLAT_REDIRECT_TO: 'https://sso.example.com',
      CLAT_REDIRECT_PATH: '/saml/login',
    });
    const reset = await startFaultServer('reset', 'tools/call');
    for (const [name, server] of [
      ['behind-sso', sso],
      ['dropping', reset],
    ] as const) {
      expect((await sandbox.run(['mcp', 'add', name, '--url', `${server.origin}/mcp`])).code).toBe(
        0,
      );
    }
    const status = parseJsonOutput<{ servers: { name: string; failure?: string }[] }>(
      await sandbox.run(['mcp', '--json', '--trust']),
    );
    const failure = status.servers.find((server) => server.name === 'behind-sso')?.failure ?? '';
    expect(failure).toContain('to https://sso.example.com/saml/login;');
    expect(failure).toContain(
      'that looks like a sign-in page for a browser (single sign-on in front of the server), which an MCP client cannot use',
    );
    expect(failure).not.toContain('update the URL in mcp.json');
    expect(failure).not.toContain('redirect-path-token');

    const call = await sandbox.run(['call', 'mcp_dropping_poke', '{}', '--trust']);
    expect(call.code).not.toBe(0);
    expect(call.stderr).toMatch(
      /failed during tools\/call \(id \d+\): (the server closed the connection \(UND_ERR_SOCKET\)|the connection was reset \(ECONNRESET\))/,
    );
  });
});

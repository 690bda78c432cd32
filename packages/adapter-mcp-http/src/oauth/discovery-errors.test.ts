import { describe, expect, it } from 'vitest';
import { discoverAuthorizationServer } from './authorization-server.js';
import { discoverProtectedResource } from './protected-resource.js';

// Zapier-style: the path of the MCP server (and so of its well-known metadata) holds the key.
const TOKEN = 'ZjY4MzE2NDItN2U1Ni00YjQ0LWE3ODAtNDk0OTc0NjA2ZDE5';
const SERVER = new URL(`https://mcp.zapier.com/api/mcp/s/${TOKEN}/mcp`);

async function messageOf(promise: Promise<unknown>): Promise<string> {
  return promise.then(
    () => 'resolved',
    (error: Error) => error.message,
  );
}

describe('OAuth discovery errors', () => {
  it('name protected resource metadata without the token in its path', async () => {
    const unreachable = await messageOf(
      discoverProtectedResource(SERVER, undefined, {
        fetch: async () => {
          throw new TypeError('fetch failed');
        },
      }),
    );
    expect(unreachable).toBe(
      'protected resource metadata https://mcp.zapier.com/.well-known/oauth-protected-resource/api/mcp/s/…/mcp of MCP server at https://mcp.zapier.com could not be fetched: fetch failed',
    );
    const failing = await messageOf(
      discoverProtectedResource(SERVER, undefined, {
        fetch: async () => new Response('down', { status: 500 }),
      }),
    );
    expect(failing).toContain(
      '/api/mcp/s/…/mcp of MCP server at https://mcp.zapier.com answered HTTP 500',
    );
    const notJson = await messageOf(
      discoverProtectedResource(SERVER, undefined, {
        fetch: async () => new Response('<html>', { status: 200 }),
      }),
    );
    expect(notJson).toContain(
      '/api/mcp/s/…/mcp of MCP server at https://mcp.zapier.com is not JSON',
    );
    for (const message of [unreachable, failing, notJson]) expect(message).not.toContain(TOKEN);
  });

  it('name authorization server metadata without the token in its path', async () => {
    const issuer = `https://auth.example/t/${TOKEN}`;
    const options = { origin: SERVER.origin, legacy: false };
    const unreachable = await messageOf(
      discoverAuthorizationServer(
        issuer,
        { fetch: async () => Promise.reject(new TypeError('fetch failed')) },
        options,
      ),
    );
    expect(unreachable).toBe(
      'authorization server metadata https://auth.example/.well-known/oauth-authorization-server/t/… could not be fetched: fetch failed',
    );
    const refused = await messageOf(
      discoverAuthorizationServer(
        issuer,
        { fetch: async () => new Response('{}', { status: 500 }) },
        options,
      ),
    );
    expect(refused).toContain(
      'authorization server metadata https://auth.example/.well-known/oauth-authorization-server/t/… was refused',
    );
    expect(refused).toMatch(/; expected issuer https:\/\/auth\.example\/t\/…$/);
    for (const message of [unreachable, refused]) expect(message).not.toContain(TOKEN);
  });
});

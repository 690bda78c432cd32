/** Streamable HTTP servers through the real `clat` binary, with secret headers kept out of output. */
import { describe, expect, it } from 'vitest';
import {
  type HttpFixture,
  startDualEraServer,
  stopAllHttpFixtures,
} from '../fixtures/http-servers/spawn.js';
import { parseJsonOutput, useCliSandbox } from './support.js';

const SECRET = 'sk-http-header-secret-0123456789';

let fixture: HttpFixture;

const sandbox = useCliSandbox(
  async () => {
    await sandbox.run(['trust']);
    fixture = await startDualEraServer();
  },
  { teardown: stopAllHttpFixtures },
);

describe('HTTP servers via clat', () => {
  it('connects with the configured header and never prints it', async () => {
    await sandbox.run([
      'mcp',
      'add',
      'web',
      '--url',
      `${fixture.origin}/mcp`,
      '--header',
      `Authorization: Bearer ${SECRET}`,
    ]);
    await sandbox.writeMcp({
      ...((await sandbox.readMcp()) as { mcpServers: object }).mcpServers,
      down: { url: 'http://127.0.0.1:1/mcp', headers: { 'X-Api-Key': SECRET } },
    });
    const result = await sandbox.run(['mcp', '--json']);
    const status = parseJsonOutput<{
      servers: {
        name: string;
        transport: string;
        state: string;
        tools: number;
        protocolVersion?: string;
        failure?: string;
      }[];
    }>(result);
    const [web, down] = status.servers;
    expect(web).toMatchObject({ name: 'web', transport: 'http', state: 'connected' });
    expect(web?.tools).toBeGreaterThan(0);
    expect(web?.protocolVersion).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(down).toMatchObject({ name: 'down', state: 'failed' });
    expect(down?.failure).toContain('127.0.0.1:1');
    expect(fixture.stderr()).toContain('"authorization":true');

    const echoed = await sandbox.run(['call', 'mcp_web_echo', '{"text":"over http"}']);
    expect(echoed.stdout).toBe('echo: over http\n');

    const listed = await sandbox.run(['mcp', 'list', '--json']);
    for (const output of [result, echoed, listed]) {
      expect(`${output.stdout}${output.stderr}`).not.toContain(SECRET);
    }
  });
});

describe('an https URL for a server that speaks plain http', () => {
  it('says so in words and names the http URL to use, which then connects', async () => {
    const https = `${fixture.origin.replace('http:', 'https:')}/mcp`;
    await sandbox.writeMcp({ mcpServers: { local: { url: https } } });
    const status = parseJsonOutput<{ servers: { state: string; failure?: string }[] }>(
      await sandbox.run(['mcp', '--json']),
    );
    expect(status.servers[0]?.state).toBe('failed');
    expect(status.servers[0]?.failure).toContain(
      `ERR_SSL_WRONG_VERSION_NUMBER; the server answered the TLS handshake with plain HTTP, so it likely speaks http: use ${fixture.origin}/mcp in the URL`,
    );
    await sandbox.writeMcp({ mcpServers: { local: { url: `${fixture.origin}/mcp` } } });
    const fixed = parseJsonOutput<{ servers: { state: string }[] }>(
      await sandbox.run(['mcp', '--json']),
    );
    expect(fixed.servers[0]?.state).toBe('connected');
  });
});

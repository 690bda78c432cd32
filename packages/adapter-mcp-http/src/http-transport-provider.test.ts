import { parseMcpConfig } from '@clat/adapter-mcp';
import { describe, expect, it } from 'vitest';
import { httpTransport } from './http-transport-provider.js';

const TOKEN = 'ZjY4MzE2NDItN2U1Ni00YjQ0LWE3ODAtNDk0OTc0NjA2ZDE5';

function server(url: string) {
  const parsed = parseMcpConfig('mcp.json', JSON.stringify({ mcpServers: { zap: { url } } }));
  const [entry] = parsed.servers;
  if (entry === undefined) throw new Error(JSON.stringify(parsed.issues));
  return entry;
}

describe('httpTransport().describe', () => {
  it('shows origin and path, with a token-like path segment as …', () => {
    const { target } = httpTransport().describe(
      server(`https://me:pw-0123456789@mcp.zapier.com/api/mcp/s/${TOKEN}/mcp?api_key=k#f`),
    );
    expect(target).toBe('https://mcp.zapier.com/api/mcp/s/…/mcp');
  });

  it('keeps a path of words and versions readable', () => {
    expect(
      httpTransport().describe(server('https://mcp.example/v1/server-memory/mcp')).target,
    ).toBe('https://mcp.example/v1/server-memory/mcp');
  });
});

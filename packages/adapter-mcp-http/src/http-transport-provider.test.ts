import { McpError, McpErrorCode, parseMcpConfig } from '@clat/adapter-mcp';
import { describe, expect, it } from 'vitest';
import { HttpTransportError } from './errors.js';
import { HttpTransportFactory } from './http-transport-factory.js';
import { httpTransport } from './http-transport-provider.js';
import { SseTransportFactory } from './sse-transport-factory.js';

const TOKEN = 'ZjY4MzE2NDItN2U1Ni00YjQ0LWE3ODAtNDk0OTc0NjA2ZDE5';

function server(url: string, extra: Record<string, unknown> = {}) {
  const parsed = parseMcpConfig(
    'mcp.json',
    JSON.stringify({ mcpServers: { zap: { url, ...extra } } }),
  );
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

describe('HTTP+SSE', () => {
  it('an entry with "type": "sse" gets the HTTP+SSE factory, labelled sse, with no probe', () => {
    const entry = server('http://127.0.0.1:9/sse', { type: 'sse', headers: { 'X-Key': 'k1' } });
    const provider = httpTransport();
    expect(provider.describe(entry)).toEqual({
      target: 'http://127.0.0.1:9/sse',
      secrets: ['k1'],
      transport: 'sse',
    });
    const factory = provider.factory(entry);
    expect(factory).toBeInstanceOf(SseTransportFactory);
    expect((factory as SseTransportFactory).legacyOnly).toBe(true);
    expect(JSON.stringify(factory)).toBe('{"kind":"sse","origin":"http://127.0.0.1:9"}');
    const plain = server('http://127.0.0.1:9/mcp');
    expect(provider.describe(plain).transport).toBeUndefined();
    expect(provider.factory(plain)).toBeInstanceOf(HttpTransportFactory);
  });

  it('Streamable HTTP falls back to HTTP+SSE only for a bare 400, 404 or 405 to initialize', () => {
    const factory = new HttpTransportFactory({ url: 'http://127.0.0.1:9/sse' });
    // As the client core reports it: the send failure wraps the transport's status error.
    const refused = (status: number, code: 'HTTP_STATUS' | 'HTTP_NETWORK' = 'HTTP_STATUS') =>
      new McpError(McpErrorCode.MCP_SEND_FAILED, 'could not send initialize', {
        cause: new HttpTransportError(code, 'http://127.0.0.1:9', `HTTP ${status}`, { status }),
      });
    for (const status of [400, 404, 405]) {
      expect(factory.fallback(refused(status))).toBeInstanceOf(SseTransportFactory);
    }
    for (const status of [401, 403, 406, 500, 503]) {
      expect(factory.fallback(refused(status))).toBeUndefined();
    }
    expect(factory.fallback(refused(404, 'HTTP_NETWORK'))).toBeUndefined();
    // A JSON-RPC error in the body: the server speaks Streamable HTTP.
    expect(
      factory.fallback(new McpError(McpErrorCode.MCP_REMOTE_ERROR, 'Server already initialized')),
    ).toBeUndefined();
  });
});

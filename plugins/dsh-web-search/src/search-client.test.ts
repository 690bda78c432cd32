import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { researchPrompt } from './index.js';
import { SEARCH_MAX_BODY_BYTES, searchEndpoint } from './search-client.js';

let server: Server;
let endpoint: string;
const seen: IncomingMessage[] = [];

beforeAll(async () => {
  server = createServer((request, response) => {
    seen.push(request);
    const url = new URL(request.url ?? '/', 'http://x');
    const q = url.searchParams.get('q') ?? '';
    if (q === 'broken') {
      response.writeHead(502).end('upstream down');
    } else if (q === 'huge') {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(`{"results":[],"pad":"${'x'.repeat(SEARCH_MAX_BODY_BYTES)}"}`);
    } else if (q === 'shape') {
      response.writeHead(200, { 'content-type': 'application/json' }).end('{"items":[]}');
    } else {
      const limit = Number(url.searchParams.get('limit'));
      const results = Array.from({ length: 10 }, (_, i) => ({
        url: `https://example.test/${encodeURIComponent(q)}/${i}`,
        title: `${q} ${i}`,
        snippet: `about ${q}`,
      }));
      response
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ results, limit }));
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
});

describe('searchEndpoint', () => {
  it('queries the endpoint with the limit and bearer key and maps the results', async () => {
    const hits = await searchEndpoint({ endpoint, apiKey: 'k-123456789' }, 'wasm components', 3);
    expect(hits).toEqual(
      [0, 1, 2].map((i) => ({
        url: `https://example.test/wasm%20components/${i}`,
        title: `wasm components ${i}`,
        snippet: 'about wasm components',
      })),
    );
    const last = seen.at(-1);
    expect(last?.url).toBe('/search?q=wasm+components&limit=3');
    expect(last?.headers.authorization).toBe('Bearer k-123456789');
  });

  it('fails with a typed error on HTTP errors, wrong shapes and oversize bodies', async () => {
    await expect(searchEndpoint({ endpoint }, 'broken', 3)).rejects.toThrow(
      /HTTP 502: upstream down/,
    );
    await expect(searchEndpoint({ endpoint }, 'shape', 3)).rejects.toThrow(/unexpected shape/);
    await expect(searchEndpoint({ endpoint }, 'huge', 3)).rejects.toThrow(/exceeds/);
    await expect(searchEndpoint({ endpoint: 'http://127.0.0.1:1/' }, 'x', 1)).rejects.toMatchObject(
      {
        code: 'SEARCH_ENDPOINT_FAILED',
      },
    );
  });

  it('builds a numbered research prompt', () => {
    expect(
      researchPrompt('q?', [
        { url: 'https://a.test/', title: 'A', snippet: 'sa' },
        { url: 'https://b.test/' },
      ]),
    ).toBe(
      'Question: q?\n\nSearch results:\n[1] A <https://a.test/>\nsa\n\n[2] https://b.test/ <https://b.test/>',
    );
  });
});

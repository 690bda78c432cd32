/**
 * Client of the JSON search endpoint (`GET <endpoint>/search?q=…&limit=…` →
 * `{ results: [{ url, title, snippet, published_at? }] }`), the shape of common self-hosted
 * search APIs. Bounded: 10 s per request, 1 MiB response, strict result parsing.
 * @module
 */
import * as z from 'zod';

export const SEARCH_TIMEOUT_MS = 10_000;
export const SEARCH_MAX_BODY_BYTES = 1024 * 1024;

const ResponseSchema = z.object({
  results: z.array(
    z.object({
      url: z.string().url(),
      title: z.string().optional(),
      snippet: z.string().optional(),
      published_at: z.string().optional(),
    }),
  ),
});

export interface SearchHit {
  url: string;
  title?: string;
  snippet?: string;
  publishedAt?: string;
}

export class SearchEndpointError extends Error {
  readonly code = 'SEARCH_ENDPOINT_FAILED';
}

export interface SearchClientOptions {
  endpoint: string;
  /** Sent as `Authorization: Bearer …`; never logged. */
  apiKey?: string;
}

export async function searchEndpoint(
  options: SearchClientOptions,
  query: string,
  limit: number,
  signal?: AbortSignal,
): Promise<SearchHit[]> {
  const url = new URL(
    'search',
    options.endpoint.endsWith('/') ? options.endpoint : `${options.endpoint}/`,
  );
  url.searchParams.set('q', query);
  url.searchParams.set('limit', String(limit));
  const timeout = AbortSignal.timeout(SEARCH_TIMEOUT_MS);
  const response = await fetch(url, {
    headers: {
      accept: 'application/json',
      ...(options.apiKey === undefined ? {} : { authorization: `Bearer ${options.apiKey}` }),
    },
    signal: signal === undefined ? timeout : AbortSignal.any([signal, timeout]),
  }).catch((error: unknown) => {
    throw new SearchEndpointError(
      `search endpoint ${url.origin} unreachable: ${(error as Error).message}`,
    );
  });
  const body = await readBounded(response);
  if (!response.ok) {
    throw new SearchEndpointError(
      `search endpoint answered HTTP ${response.status}: ${body.slice(0, 200)}`,
    );
  }
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    throw new SearchEndpointError('search endpoint returned invalid JSON');
  }
  const parsed = ResponseSchema.safeParse(json);
  if (!parsed.success) {
    throw new SearchEndpointError(
      `search endpoint returned an unexpected shape: ${parsed.error.issues[0]?.message}`,
    );
  }
  return parsed.data.results.slice(0, limit).map((hit) => ({
    url: hit.url,
    ...(hit.title === undefined ? {} : { title: hit.title }),
    ...(hit.snippet === undefined ? {} : { snippet: hit.snippet }),
    ...(hit.published_at === undefined ? {} : { publishedAt: hit.published_at }),
  }));
}

async function readBounded(response: Response): Promise<string> {
  const reader = response.body?.getReader();
  if (reader === undefined) return '';
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > SEARCH_MAX_BODY_BYTES) {
      await reader.cancel();
      throw new SearchEndpointError(
        `search endpoint response exceeds ${SEARCH_MAX_BODY_BYTES} bytes`,
      );
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

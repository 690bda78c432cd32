/**
 * `ctx.web`: search and fetch provider registries plus the built-in `web_search` and `web_fetch`
 * tools DSH exposes when providers exist. A plugin tool of the same name wins.
 * @module
 */
import { isJsonObject } from '@clat/kernel';
import { DshAdapterError, DshErrorCode } from '../errors.js';
import type { ServedTool, ToolAnnotations } from './tools.js';

export interface WebSearchRequest {
  query: string;
  maxResults?: number;
}

export interface WebSearchSource {
  url: string;
  title?: string;
  snippet?: string;
  publishedAt?: string;
}

export interface WebSearchResult {
  content?: string;
  sources: WebSearchSource[];
  truncated: boolean;
}

export interface WebSearchProvider {
  id: string;
  available(): boolean;
  search(request: WebSearchRequest, signal?: AbortSignal): Promise<WebSearchResult>;
}

export interface WebFetchResult {
  url: string;
  statusCode: number;
  body: { kind: 'html' | 'text'; content: string };
  truncated: boolean;
}

export interface WebFetchProvider {
  id: string;
  available(): boolean;
  fetch(request: { url: string }, signal?: AbortSignal): Promise<WebFetchResult>;
}

/** Queries one web_search call may run. */
export const WEB_SEARCH_MAX_QUERIES = 4;
/** Sources one web_search call returns. */
export const WEB_SEARCH_MAX_RESULTS = 8;
/** Characters of fetched content web_fetch returns. */
export const WEB_FETCH_MAX_CHARS = 100_000;
/** Env var naming the search provider when several are available. */
export const SEARCH_PROVIDER_ENV = 'DSH_WEB_SEARCH_PROVIDER';
/** Env var naming the fetch provider when several are available. */
export const FETCH_PROVIDER_ENV = 'DSH_WEB_FETCH_PROVIDER';

const OPEN_WORLD_READ: ToolAnnotations = { readOnlyHint: true, openWorldHint: true };

type Provider = { id: string; available(): boolean };

function select<T extends Provider>(
  providers: Map<string, T>,
  configured: string | undefined,
  kind: string,
): T {
  if (configured !== undefined && configured !== '') {
    const provider = providers.get(configured);
    if (provider === undefined) {
      throw new DshAdapterError(
        DshErrorCode.WEB_PROVIDER_CONFIGURED_MISSING,
        `${kind} provider ${configured} is configured but not registered (registered: ${[...providers.keys()].join(', ') || 'none'})`,
      );
    }
    if (!provider.available()) {
      throw new DshAdapterError(
        DshErrorCode.WEB_PROVIDER_CONFIGURED_UNAVAILABLE,
        `${kind} provider ${configured} is configured but reports itself unavailable`,
      );
    }
    return provider;
  }
  const available = [...providers.values()].filter((provider) => provider.available());
  if (available.length === 0) {
    throw new DshAdapterError(
      DshErrorCode.WEB_PROVIDER_UNAVAILABLE,
      `no ${kind} provider is available`,
    );
  }
  if (available.length > 1) {
    throw new DshAdapterError(
      DshErrorCode.WEB_PROVIDER_AMBIGUOUS,
      `several ${kind} providers are available (${available.map((p) => p.id).join(', ')}); choose one with ${kind === 'search' ? SEARCH_PROVIDER_ENV : FETCH_PROVIDER_ENV}`,
    );
  }
  return available[0] as T;
}

function validateProvider(
  provider: unknown,
  method: 'search' | 'fetch',
): asserts provider is Provider {
  if (
    !isJsonObject(provider) ||
    typeof provider.id !== 'string' ||
    provider.id === '' ||
    typeof provider.available !== 'function' ||
    typeof provider[method] !== 'function'
  ) {
    throw new DshAdapterError(
      DshErrorCode.WEB_BAD_PROVIDER,
      `a web ${method} provider needs an id, available() and ${method}()`,
    );
  }
}

export class WebService {
  readonly #search = new Map<string, WebSearchProvider>();
  readonly #fetch = new Map<string, WebFetchProvider>();
  readonly #env: Readonly<Record<string, string | undefined>>;
  readonly #track: (dispose: () => unknown, label: string) => void;

  constructor(
    env: Readonly<Record<string, string | undefined>>,
    track: (dispose: () => unknown, label: string) => void,
  ) {
    this.#env = env;
    this.#track = track;
  }

  registerSearchProvider(provider: WebSearchProvider): () => void {
    validateProvider(provider, 'search');
    return this.#add(this.#search, provider, 'search');
  }

  registerFetchProvider(provider: WebFetchProvider): () => void {
    validateProvider(provider, 'fetch');
    return this.#add(this.#fetch, provider, 'fetch');
  }

  async search(request: WebSearchRequest, signal?: AbortSignal): Promise<WebSearchResult> {
    const provider = select(this.#search, this.#env[SEARCH_PROVIDER_ENV], 'search');
    return provider.search(request, signal);
  }

  async fetch(request: { url: string }, signal?: AbortSignal): Promise<WebFetchResult> {
    const provider = select(this.#fetch, this.#env[FETCH_PROVIDER_ENV], 'fetch');
    return provider.fetch(request, signal);
  }

  /** The built-in tools for the providers registered now. */
  builtinTools(): ServedTool[] {
    const tools: ServedTool[] = [];
    if (this.#search.size > 0) tools.push(this.#searchTool());
    if (this.#fetch.size > 0) tools.push(this.#fetchTool());
    return tools;
  }

  #add<T extends Provider>(map: Map<string, T>, provider: T, kind: string): () => void {
    if (map.has(provider.id)) {
      throw new DshAdapterError(
        DshErrorCode.WEB_DUPLICATE_PROVIDER,
        `web ${kind} provider ${provider.id} is already registered`,
      );
    }
    map.set(provider.id, provider);
    let active = true;
    const dispose = () => {
      if (!active) return;
      active = false;
      if (map.get(provider.id) === provider) map.delete(provider.id);
    };
    this.#track(dispose, `web ${kind} provider ${provider.id}`);
    return dispose;
  }

  #searchTool(): ServedTool {
    return {
      name: 'web_search',
      description:
        'Search the web. Give 1 to 4 focused queries; results from all queries are merged and de-duplicated by URL.',
      inputSchema: {
        type: 'object',
        properties: {
          queries: {
            type: 'array',
            items: { type: 'string', minLength: 1 },
            minItems: 1,
            maxItems: WEB_SEARCH_MAX_QUERIES,
            description: 'Search queries',
          },
        },
        required: ['queries'],
        additionalProperties: false,
      },
      annotations: OPEN_WORLD_READ,
      timeoutMs: undefined,
      builtin: true,
      execute: async (args, exec) => {
        const queries = args.queries;
        if (
          !Array.isArray(queries) ||
          queries.length === 0 ||
          queries.length > WEB_SEARCH_MAX_QUERIES ||
          queries.some((q) => typeof q !== 'string' || q.trim() === '')
        ) {
          throw new DshAdapterError(
            DshErrorCode.BAD_REQUEST,
            `web_search needs 1 to ${WEB_SEARCH_MAX_QUERIES} non-empty queries`,
          );
        }
        const outcomes = await Promise.all(
          (queries as string[]).map((query) =>
            this.search({ query, maxResults: WEB_SEARCH_MAX_RESULTS }, exec.signal),
          ),
        );
        return mergeSearchResults(outcomes);
      },
      render: (_args, value) => [{ type: 'text', text: renderSearch(value as WebSearchResult) }],
    };
  }

  #fetchTool(): ServedTool {
    return {
      name: 'web_fetch',
      description: 'Fetch a web page and return its text content.',
      inputSchema: {
        type: 'object',
        properties: { url: { type: 'string', description: 'Absolute http(s) URL' } },
        required: ['url'],
        additionalProperties: false,
      },
      annotations: OPEN_WORLD_READ,
      timeoutMs: undefined,
      builtin: true,
      execute: async (args, exec) => {
        const url = args.url;
        if (typeof url !== 'string' || !/^https?:\/\//i.test(url)) {
          throw new DshAdapterError(
            DshErrorCode.BAD_REQUEST,
            'web_fetch needs an absolute http(s) url',
          );
        }
        const result = await this.fetch({ url }, exec.signal);
        const content = String(result.body?.content ?? '');
        const truncated = result.truncated === true || content.length > WEB_FETCH_MAX_CHARS;
        return {
          url: result.url,
          statusCode: result.statusCode,
          body: {
            kind: result.body?.kind === 'html' ? 'html' : 'text',
            content: content.slice(0, WEB_FETCH_MAX_CHARS),
          },
          truncated,
        } satisfies WebFetchResult;
      },
      render: (_args, value) => {
        const result = value as WebFetchResult;
        const note = result.truncated ? '\n\n[content truncated]' : '';
        return [
          {
            type: 'text',
            text: `${result.url} (HTTP ${result.statusCode})\n\n${result.body.content}${note}`,
          },
        ];
      },
    };
  }
}

/** Round-robin merge across queries, first occurrence of a URL wins, bounded count. */
export function mergeSearchResults(outcomes: WebSearchResult[]): WebSearchResult {
  const seen = new Set<string>();
  const sources: WebSearchSource[] = [];
  const lists = outcomes.map((outcome) => (Array.isArray(outcome?.sources) ? outcome.sources : []));
  const longest = Math.max(0, ...lists.map((list) => list.length));
  let truncated = outcomes.some((outcome) => outcome?.truncated === true);
  for (let i = 0; i < longest; i += 1) {
    for (const list of lists) {
      const source = list[i];
      if (source === undefined || typeof source.url !== 'string' || seen.has(source.url)) continue;
      if (sources.length === WEB_SEARCH_MAX_RESULTS) {
        truncated = true;
        continue;
      }
      seen.add(source.url);
      sources.push(source);
    }
  }
  const content = outcomes
    .map((outcome) => outcome?.content)
    .filter((text): text is string => typeof text === 'string' && text !== '')
    .join('\n\n');
  return content === '' ? { sources, truncated } : { content, sources, truncated };
}

function renderSearch(result: WebSearchResult): string {
  if (result.sources.length === 0) return result.content ?? 'No results.';
  const lines = result.sources.map((source, index) => {
    const title = source.title ?? source.url;
    const snippet = source.snippet ? `\n   ${source.snippet}` : '';
    return `${index + 1}. ${title}\n   ${source.url}${snippet}`;
  });
  const head = result.content ? `${result.content}\n\n` : '';
  return `${head}${lines.join('\n')}${result.truncated ? '\n[more results were omitted]' : ''}`;
}

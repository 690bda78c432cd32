/**
 * dsh-web-search: a DSH plugin in Cordis' Service-class form. It registers a web-search provider
 * for a JSON search endpoint (the adapter then serves DSH's built-in `web_search` tool), and a
 * `research` tool that searches and asks the session model — through MCP sampling, so CLAT's
 * approval and budget gates apply — for a cited summary.
 * @module
 */
import { type DshPluginContext, defineTool } from '@clat/adapter-dsh';
import * as z from 'zod';
import { type SearchHit, searchEndpoint } from './search-client.js';

const ConfigSchema = z
  .object({
    endpoint: z.string().url().default('http://127.0.0.1:8787/'),
    apiKey: z.string().min(1).optional(),
    maxResults: z.number().int().min(1).max(8).default(5),
  })
  .strict();

export type WebSearchConfig = z.infer<typeof ConfigSchema>;

const INIT = Symbol.for('cordis.init');

export default class WebSearchService {
  static inject = ['web', 'tools', 'llm'];
  static Config = ConfigSchema;

  readonly #ctx: DshPluginContext;
  readonly #config: WebSearchConfig;

  constructor(ctx: DshPluginContext, config: WebSearchConfig) {
    this.#ctx = ctx;
    this.#config = config;
  }

  /** Cordis init: runs after construction; what it yields is disposed on shutdown. */
  *[INIT](): Generator<() => unknown> {
    const { apiKey, endpoint, maxResults } = this.#config;
    const client = { endpoint, ...(apiKey === undefined ? {} : { apiKey }) };
    yield this.#ctx.web.registerSearchProvider({
      id: 'json-endpoint',
      available: () => true,
      search: async (request, signal) => {
        const hits = await searchEndpoint(
          client,
          request.query,
          Math.min(request.maxResults ?? maxResults, maxResults),
          signal,
        );
        return { sources: hits, truncated: false };
      },
    });
    yield this.#ctx.tools.register(
      defineTool({
        name: 'research',
        description:
          'Search the web for a question and return a short cited summary written by the session model.',
        parameters: z.object({ question: z.string().min(1).max(500) }).strict(),
        execute: async (args, exec) => {
          const { sources } = await this.#ctx.web.search(
            { query: args.question, maxResults },
            exec.signal,
          );
          if (sources.length === 0) return { summary: 'No results.', sources: [] };
          let summary = '';
          for await (const chunk of this.#ctx.llm.stream({
            system: 'Answer in at most three sentences. Cite sources as [n].',
            messages: [{ role: 'user', content: researchPrompt(args.question, sources) }],
            maxTokens: 512,
            signal: exec.signal,
          })) {
            if (chunk.type === 'text-delta') summary += chunk.text;
          }
          return { summary, sources: sources.map((source) => source.url) };
        },
      }),
    );
    this.#ctx
      .logger('dsh-web-search')
      .info('search provider ready for %s', new URL(endpoint).origin);
  }
}

export function researchPrompt(question: string, sources: readonly SearchHit[]): string {
  const listed = sources
    .map((source, index) =>
      `[${index + 1}] ${source.title ?? source.url} <${source.url}>\n${source.snippet ?? ''}`.trim(),
    )
    .join('\n\n');
  return `Question: ${question}\n\nSearch results:\n${listed}`;
}

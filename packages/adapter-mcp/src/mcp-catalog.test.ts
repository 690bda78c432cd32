import { LIMITS } from '@clat/kernel';
import { afterEach, describe, expect, it } from 'vitest';
import { McpClient } from './client.js';
import { isMcpError, McpErrorCode } from './errors.js';
import { createMcpCatalog, renderedPromptFromMcp, resourceReadFromMcp } from './mcp-catalog.js';
import {
  legacyServer,
  ScriptedFactory,
  type ScriptedServer,
} from './test-support/scripted-server.js';

const clients: McpClient[] = [];

afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close()));
});

async function connect(
  capabilities: Record<string, unknown>,
  setup: (server: ScriptedServer) => void = () => {},
) {
  const factory = new ScriptedFactory((server) => {
    legacyServer('2025-11-25', { capabilities })(server);
    setup(server);
  });
  const client = await McpClient.connect({ name: 'srv', factory });
  clients.push(client);
  return { client, live: () => factory.servers.at(-1) as ScriptedServer };
}

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => {
      throw new Error('expected a rejection');
    },
    (error: unknown) => error,
  );
}

describe('createMcpCatalog', () => {
  it('lists prompts with their declared arguments in order and renders one', async () => {
    const { client, live } = await connect({ prompts: {} }, (server) => {
      server
        .on('prompts/list', {
          result: {
            prompts: [
              {
                name: 'args-prompt',
                description: 'two args',
                arguments: [
                  { name: 'city', description: 'City', required: true },
                  { name: 'state' },
                  { description: 'no name' },
                ],
              },
              { name: 'simple' },
            ],
          },
        })
        .on('prompts/get', (request) => ({
          result: {
            description: 'weather',
            messages: [
              {
                role: 'user',
                content: {
                  type: 'text',
                  text: `weather in ${(request.params?.arguments as { city?: string } | undefined)?.city}`,
                },
              },
              {
                role: 'assistant',
                content: [{ type: 'image', data: 'AAECAw==', mimeType: 'image/png' }],
              },
            ],
          },
        }));
    });
    const catalog = createMcpCatalog(client);
    expect(catalog.prompts).toBe(true);
    expect(catalog.resources).toBe(false);
    expect(await catalog.listPrompts()).toEqual([
      {
        name: 'args-prompt',
        description: 'two args',
        arguments: [
          { name: 'city', description: 'City', required: true },
          { name: 'state', required: false },
        ],
      },
      { name: 'simple', arguments: [] },
    ]);
    const rendered = await catalog.renderPrompt('args-prompt', { city: 'Paris' });
    expect(live().requests('prompts/get')[0]?.params).toMatchObject({
      name: 'args-prompt',
      arguments: { city: 'Paris' },
    });
    expect(rendered).toEqual({
      description: 'weather',
      messages: [
        { role: 'user', content: [{ kind: 'text', text: 'weather in Paris' }] },
        {
          role: 'assistant',
          content: [{ kind: 'blob', blob: 'AAECAw==', bytes: 4, mimeType: 'image/png' }],
        },
      ],
    });
    const error = await rejection(catalog.listResources());
    expect(isMcpError(error) && error.code).toBe(McpErrorCode.MCP_NOT_OFFERED);
    expect((error as Error).message).toBe('MCP server "srv" offers no resources');
  });

  it('pages resources and templates with cursors and reads text and blob contents', async () => {
    const { client, live } = await connect({ resources: {} }, (server) => {
      server
        .on('resources/list', (request) =>
          request.params?.cursor === undefined
            ? {
                result: {
                  resources: [{ uri: 'demo://a', name: 'a', mimeType: 'text/plain', size: 3 }],
                  nextCursor: 'page2',
                },
              }
            : { result: { resources: [{ uri: 'demo://b' }, { name: 'no uri' }] } },
        )
        .on('resources/templates/list', {
          result: {
            resourceTemplates: [
              { uriTemplate: 'demo://t/{id}', name: 't', description: 'by id' },
              { name: 'no template' },
            ],
          },
        })
        .on('resources/read', (request) => ({
          result: {
            contents: [
              { uri: request.params?.uri, mimeType: 'text/plain', text: 'hello' },
              { uri: `${String(request.params?.uri)}#bin`, blob: 'aGk=' },
            ],
          },
        }));
    });
    const catalog = createMcpCatalog(client);
    expect(catalog.prompts).toBe(false);
    expect(await catalog.listResources()).toEqual([
      { uri: 'demo://a', name: 'a', mimeType: 'text/plain', size: 3 },
      { uri: 'demo://b', name: 'demo://b' },
    ]);
    expect(
      live()
        .requests('resources/list')
        .map((r) => r.params?.cursor),
    ).toEqual([undefined, 'page2']);
    expect(await catalog.listResourceTemplates()).toEqual([
      { uriTemplate: 'demo://t/{id}', name: 't', description: 'by id' },
    ]);
    const read = await catalog.readResource('demo://a');
    expect(read.contents).toEqual([
      { kind: 'text', text: 'hello', uri: 'demo://a', mimeType: 'text/plain' },
      { kind: 'blob', blob: 'aGk=', bytes: 2, uri: 'demo://a#bin' },
    ]);
    expect(read.bytes).toBeGreaterThan(0);
  });

  it('treats a server without the template listing as having no templates', async () => {
    const { client } = await connect({ resources: {} });
    expect(await createMcpCatalog(client).listResourceTemplates()).toEqual([]);
  });

  it('aborts a listing whose cursor repeats', async () => {
    const { client } = await connect({ resources: {} }, (server) => {
      server.on('resources/templates/list', {
        result: { resourceTemplates: [], nextCursor: 'again' },
      });
    });
    const error = await rejection(createMcpCatalog(client).listResourceTemplates());
    expect(isMcpError(error) && error.code).toBe(McpErrorCode.MCP_LIST_LIMIT);
    expect((error as Error).message).toContain('repeated cursor "again"');
  });

  it('refuses a read over the result limit, naming the resource and the limit', async () => {
    const big = 'x'.repeat(LIMITS.toolResultBytes);
    const { client } = await connect({ resources: {} }, (server) => {
      server.on('resources/read', { result: { contents: [{ uri: 'demo://big', text: big }] } });
    });
    const error = await rejection(createMcpCatalog(client).readResource('demo://big'));
    expect(isMcpError(error) && error.code).toBe(McpErrorCode.MCP_RESULT_TOO_LARGE);
    expect((error as Error).message).toMatch(
      /^resource "demo:\/\/big" of MCP server "srv" returned \d+ bytes, over the result limit of 1048576 bytes$/,
    );
  });

  it('refuses a prompt or a read nested deeper than the result limit, not overflowing the stack', () => {
    // Built iteratively: 20,000 levels overflowed the size measure's JSON.stringify.
    let meta: Record<string, unknown> = {};
    for (let level = 0; level < 20_000; level++) meta = { a: meta };
    const text = { type: 'text', text: 'hi' };
    const prompt = { messages: [{ role: 'user', content: text }], _meta: meta };
    const read = { contents: [{ uri: 'demo://deep', text: 'hi' }], _meta: meta };
    const refusal = (build: () => unknown) => {
      try {
        build();
      } catch (error) {
        return isMcpError(error) ? [error.code, error.message] : error;
      }
      return 'accepted';
    };
    const limit = LIMITS.toolResultDepth;
    expect(refusal(() => renderedPromptFromMcp('srv', 'p', prompt))).toEqual([
      McpErrorCode.MCP_RESULT_TOO_LARGE,
      `prompt "p" of MCP server "srv" returned JSON nested more than ${limit} levels deep (the limit)`,
    ]);
    expect(refusal(() => resourceReadFromMcp('srv', 'demo://deep', read))).toEqual([
      McpErrorCode.MCP_RESULT_TOO_LARGE,
      `resource "demo://deep" of MCP server "srv" returned JSON nested more than ${limit} levels deep (the limit)`,
    ]);
  });

  it('refuses a rendered prompt without messages and keeps embedded resources and links', () => {
    expect(() => renderedPromptFromMcp('srv', 'p', {})).toThrow(
      'prompt "p" of MCP server "srv" returned no "messages" array',
    );
    const rendered = renderedPromptFromMcp('srv', 'p', {
      messages: [
        {
          role: 'user',
          content: { type: 'resource', resource: { uri: 'demo://r', text: 'inside' } },
        },
        { role: 'user', content: { type: 'resource_link', uri: 'demo://l', name: 'l' } },
        { role: 'user', content: { type: 'unknown' } },
      ],
    });
    expect(rendered.messages).toEqual([
      { role: 'user', content: [{ kind: 'text', text: 'inside', uri: 'demo://r' }] },
      {
        role: 'user',
        content: [{ kind: 'text', text: 'resource link: demo://l', uri: 'demo://l' }],
      },
    ]);
  });
});

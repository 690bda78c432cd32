import {
  type CatalogPrompt,
  type Connector,
  createGlobalScope,
  LIMITS,
  type PluginCatalog,
  PluginMount,
  PromptRegistry,
  Redactor,
  ToolRegistry,
} from '@clat/kernel';
import { afterEach, describe, expect, it } from 'vitest';
import { SessionCatalog } from './session-catalog.js';

const scopes: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(scopes.splice(0).map((scope) => scope.close()));
});

function fakeCatalog(prompts: CatalogPrompt[], texts: Record<string, string>) {
  const calls = { listPrompts: 0 };
  const catalog: PluginCatalog = {
    prompts: true,
    resources: true,
    listPrompts: async () => {
      calls.listPrompts++;
      return [...prompts];
    },
    renderPrompt: async (name, args) => ({
      messages: [
        { role: 'user', content: [{ kind: 'text', text: `${name} ${JSON.stringify(args)}` }] },
      ],
    }),
    listResources: async () => [],
    listResourceTemplates: async () => [],
    readResource: async (uri) => {
      const text = texts[uri];
      if (text === undefined) throw new Error(`no resource ${uri}`);
      return { contents: [{ kind: 'text', text, uri }], bytes: text.length };
    },
  };
  return { catalog, calls, prompts };
}

async function session(catalog: PluginCatalog) {
  const scope = createGlobalScope().child('/project');
  scopes.push(scope);
  const connector: Connector = { kind: 'fake', mount: async () => ({ progress: {}, catalog }) };
  const mount = new PluginMount({
    entries: [{ kind: 'fake', name: 'docs', origin: 'user', config: {} }],
    connectors: [connector],
    registry: new ToolRegistry(),
    prompts: new PromptRegistry(),
    scope,
    hostServices: {} as never,
    projectRoot: '/project',
    redactor: new Redactor(),
  });
  await mount.start();
  return new SessionCatalog(mount);
}

describe('SessionCatalog', () => {
  it('renders a command, and lists afresh once when a command is not in the kept listing', async () => {
    const fake = fakeCatalog([{ name: 'one', arguments: [{ name: 'x', required: true }] }], {});
    const catalog = await session(fake.catalog);
    const rendered = await catalog.render('mcp__docs__one', 'x=1');
    expect(rendered.messages).toEqual([{ role: 'user', content: 'one {"x":"1"}' }]);
    expect(rendered.shown).toBe('prompt /mcp__docs__one (1 message):\n[user]\none {"x":"1"}\n');
    expect(fake.calls.listPrompts).toBe(1);
    // The server gained a prompt after the first listing.
    fake.prompts.push({ name: 'two', arguments: [] });
    await catalog.render('mcp__docs__two', '');
    expect(fake.calls.listPrompts).toBe(2);
    await catalog.render('mcp__docs__one', '1');
    expect(fake.calls.listPrompts).toBe(2);
    await expect(catalog.render('mcp__docs__three', '')).rejects.toThrow(
      'no prompt command /mcp__docs__three; /prompts lists them',
    );
  });

  it('attaches mentions within the result limit and fails the whole message otherwise', async () => {
    const half = 'h'.repeat(LIMITS.toolResultBytes / 2 + 1);
    const catalog = await session(
      fakeCatalog([], { 'mem://a': 'alpha', 'mem://h1': half, 'mem://h2': half }).catalog,
    );
    expect(await catalog.attach('plain text, mail a@docs.org')).toEqual({ blocks: [], notes: [] });
    const attached = await catalog.attach('read @docs:mem://a.');
    expect(attached.blocks).toEqual(['<resource server="docs" uri="mem://a">\nalpha\n</resource>']);
    expect(attached.notes).toEqual(['attached @docs:mem://a (5 bytes)']);
    await expect(catalog.attach('@docs:mem://h1 @docs:mem://h2')).rejects.toThrow(
      `the resources mentioned in this message total over ${LIMITS.toolResultBytes} bytes (the result limit) at @docs:mem://h2; mention fewer`,
    );
    await expect(catalog.attach('@docs:mem://missing')).rejects.toThrow(
      'no resource mem://missing',
    );
  });

  it('sends a person to /mcp for a server it cannot ask', async () => {
    const catalog = await session(fakeCatalog([], {}).catalog);
    await expect(catalog.resourcesText('nosuch')).rejects.toThrow(
      'no server named "nosuch" is mounted; "/mcp" shows every server',
    );
  });
});

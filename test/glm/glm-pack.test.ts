import { mkdtemp, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inspect } from 'node:util';
import { describeGlmPack, mergeGlmPack } from '@clat/adapter-glm';
import {
  describeServerConfig,
  McpClient,
  type McpServerConfig,
  mountMcpServer,
  parseMcpConfig,
} from '@clat/adapter-mcp';
import { HttpTransportFactory } from '@clat/adapter-mcp-http';
import { StdioTransportFactory } from '@clat/adapter-mcp-stdio';
import { createGlobalScope, PromptRegistry, Redactor, ToolRegistry } from '@clat/kernel';
import { groupMembers } from '@clat/process';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  type HttpFixture,
  startDualEraServer,
  stopAllHttpFixtures,
} from '../fixtures/http-servers/spawn.js';

// The GLM Coding Plan pack end to end, offline: the real @z_ai/mcp-server (pinned devDependency,
// run from node_modules instead of `npx …@latest`) started with the environment the pack computed
// from a dummy key, over the real stdio transport and client core.

const require = createRequire(import.meta.url);
const ZAI_ENTRY = require.resolve('@z_ai/mcp-server/build/index.js');
// @z_ai/mcp-server rejects keys containing "api" or "key" as unreplaced placeholders.
const DUMMY = 'dummy0000glmcodingplan0000';
const VISION_TOOLS = [
  'analyze_data_visualization',
  'analyze_image',
  'analyze_video',
  'diagnose_error_screenshot',
  'extract_text_from_screenshot',
  'ui_diff_check',
  'ui_to_artifact',
  'understand_technical_diagram',
];

let home: string;
const cleanups: (() => Promise<void>)[] = [];
beforeAll(async () => {
  home = await mkdtemp(join(tmpdir(), 'clat-glm-home-'));
});
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});
afterAll(async () => {
  await stopAllHttpFixtures();
  await rm(home, { recursive: true, force: true });
});

function visionFactory(vision: McpServerConfig) {
  if (vision.transport !== 'stdio') throw new Error('glm-vision must be a stdio entry');
  // Offline: the same entry, launched from node_modules rather than npx; env as the pack set it.
  expect(vision.command).toBe('npx');
  expect(vision.args).toEqual(['-y', '@z_ai/mcp-server@latest']);
  const redactor = new Redactor();
  for (const value of Object.values(vision.env ?? {})) redactor.add(value);
  return new StdioTransportFactory({
    name: vision.name,
    command: process.execPath,
    args: [ZAI_ENTRY],
    env: { ...vision.env, ZAI_MCP_LOG_PATH: join(home, 'zai-mcp.log') },
    defaultCwd: home,
    redactor,
  });
}

describe('GLM pack with the real @z_ai/mcp-server', () => {
  it('glm-vision connects over stdio with the pack key and lists its eight tools', async () => {
    const merge = mergeGlmPack({ vendor: 'glm', apiKey: DUMMY }, []);
    expect(merge.added).toEqual(['glm-search', 'glm-reader', 'glm-zread', 'glm-vision']);
    const vision = merge.servers.find((s) => s.name === 'glm-vision') as McpServerConfig;
    expect(vision).toMatchObject({ env: { Z_AI_API_KEY: DUMMY } });
    const factory = visionFactory(vision);
    const client = await McpClient.connect({
      name: 'glm-vision',
      factory,
      timeouts: { modernProbeMs: 3_000, legacyHandshakeMs: 20_000, listPageMs: 20_000 },
    });
    cleanups.push(async () => {
      await client.close();
      for (const pid of factory.spawnedPids) expect(groupMembers(pid)).toEqual([]);
    });
    expect(client.era).toBe('legacy');
    expect(client.serverInfo.name).toMatch(/zai|vision|mcp/i);
    const tools = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(VISION_TOOLS);
    expect(tools.find((t) => t.name === 'analyze_image')?.inputSchema).toMatchObject({
      properties: { image_source: {}, prompt: {} },
    });
    expect(JSON.stringify(client.diagnostics())).not.toContain(DUMMY);
  });

  it('mounted: vision tools join the registry as mcp_glm_vision_*; status never shows the key', async () => {
    const merge = mergeGlmPack({ vendor: 'zai', apiKey: DUMMY }, []);
    const vision = merge.servers.find((s) => s.name === 'glm-vision') as McpServerConfig;
    expect(vision).toMatchObject({ env: { Z_AI_MODE: 'ZAI' } });
    const registry = new ToolRegistry();
    const scope = createGlobalScope('glm-e2e').child('project');
    const factory = visionFactory(vision);
    const mounted = await mountMcpServer({
      name: 'glm-vision',
      factory,
      registry,
      prompts: new PromptRegistry(),
      scope,
      projectRoot: home,
      timeouts: { modernProbeMs: 3_000, legacyHandshakeMs: 20_000, listPageMs: 20_000 },
    });
    cleanups.push(async () => {
      await scope.close();
      for (const pid of factory.spawnedPids) expect(groupMembers(pid)).toEqual([]);
    });
    const status = mounted.status();
    expect(status).toMatchObject({ state: 'connected', transport: 'stdio', tools: 8 });
    const names = registry
      .list()
      .map((t) => t.name)
      .sort();
    expect(names).toContain('mcp_glm_vision_analyze_image');
    expect(names).toHaveLength(8);
    // No annotations from this server: every tool is Destructive until the user approves.
    expect(new Set(registry.list().map((t) => t.effect))).toEqual(new Set(['destructive']));
    const shown = [
      JSON.stringify(status),
      ...describeGlmPack(merge),
      ...merge.servers.map((s) => JSON.stringify(describeServerConfig(s))),
    ].join('\n');
    expect(shown).not.toContain(DUMMY);
  });
});

describe('GLM pack HTTP entries', () => {
  let local: HttpFixture;
  beforeAll(async () => {
    local = await startDualEraServer();
  });

  it('HTTP pack entries open factories that name only the platform origin', () => {
    const merge = mergeGlmPack({ vendor: 'glm', apiKey: DUMMY }, []);
    for (const server of merge.servers) {
      if (server.transport !== 'http') continue;
      const factory = HttpTransportFactory.fromConfig(server);
      expect(factory.origin).toBe('https://open.bigmodel.cn');
      for (const text of [JSON.stringify(factory), inspect(factory, { depth: 5 })]) {
        expect(text).not.toContain(DUMMY);
      }
    }
  });

  it("a same-named user entry replaces glm-search and is used as written, without the provider's key", async () => {
    const user = parseMcpConfig(
      join(home, 'mcp.json'),
      JSON.stringify({ 'glm-search': { url: `${local.origin}/` } }),
    );
    expect(user.issues).toEqual([]);
    const merge = mergeGlmPack({ vendor: 'glm', apiKey: DUMMY }, user.servers);
    expect(merge.overridden).toEqual(['glm-search']);
    const search = merge.servers.find((s) => s.name === 'glm-search') as McpServerConfig;
    expect(search).toMatchObject({ origin: 'user', url: `${local.origin}/` });
    if (search.transport !== 'http') throw new Error('expected http');
    const registry = new ToolRegistry();
    const scope = createGlobalScope('glm-e2e').child('project');
    cleanups.push(() => scope.close());
    const mounted = await mountMcpServer({
      name: search.name,
      factory: HttpTransportFactory.fromConfig(search),
      registry,
      prompts: new PromptRegistry(),
      scope,
      projectRoot: home,
    });
    expect(mounted.status()).toMatchObject({ state: 'connected', era: 'modern', tools: 4 });
    expect(registry.list().map((t) => t.name)).toContain('mcp_glm_search_echo');
    // The local replacement saw no Authorization header: the key stays with the pack's own entry.
    await local.waitFor('"method":"tools/list"');
    expect(local.stderr()).toContain('"authorization":false');
    expect(local.stderr()).not.toContain('"authorization":true');
  });
});

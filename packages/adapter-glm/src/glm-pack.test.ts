import { inspect } from 'node:util';
import { describeServerConfig, type McpServerConfig, parseMcpConfig } from '@clat/adapter-mcp';
import { redactSecrets } from '@clat/kernel';
import { describe, expect, it } from 'vitest';
import {
  describeGlmPack,
  GLM_PACK_SERVERS,
  glmPackServers,
  glmPackStatus,
  glmPlatformOf,
  mergeGlmPack,
} from './glm-pack.js';

const KEY = 'glmkey.0123456789abcdefABCDEF';
const GLM = { vendor: 'glm', apiKey: KEY };
const PACK_NAMES = ['glm-search', 'glm-reader', 'glm-zread', 'glm-vision'];

function user(text: string): McpServerConfig[] {
  const parsed = parseMcpConfig('/home/u/.clat/mcp.json', text);
  expect(parsed.issues).toEqual([]);
  return parsed.servers;
}

describe('GLM pack activation', () => {
  it('adds the four servers for GLM with a key, with the spec endpoints and tools', () => {
    const servers = glmPackServers(GLM);
    expect(servers.map((s) => s.name)).toEqual(PACK_NAMES);
    const byName = Object.fromEntries(servers.map((s) => [s.name, s]));
    expect(byName['glm-search']).toMatchObject({
      transport: 'http',
      url: 'https://open.bigmodel.cn/api/mcp/web_search_prime/mcp',
      origin: 'glm-pack',
    });
    expect(byName['glm-reader']).toMatchObject({
      url: 'https://open.bigmodel.cn/api/mcp/web_reader/mcp',
    });
    expect(byName['glm-zread']).toMatchObject({
      url: 'https://open.bigmodel.cn/api/mcp/zread/mcp',
    });
    expect(byName['glm-vision']).toMatchObject({
      transport: 'stdio',
      command: 'npx',
      args: ['-y', '@z_ai/mcp-server@latest'],
      env: { Z_AI_API_KEY: KEY },
    });
    for (const name of ['glm-search', 'glm-reader', 'glm-zread']) {
      expect(byName[name]).toMatchObject({ headers: { Authorization: `Bearer ${KEY}` } });
    }
    expect(GLM_PACK_SERVERS.find((s) => s.name === 'glm-zread')?.tools).toEqual([
      'search_doc',
      'get_repo_structure',
      'read_file',
    ]);
  });

  it('uses api.z.ai and Z_AI_MODE=ZAI for the international platform', () => {
    const servers = glmPackServers({ vendor: 'zai', apiKey: KEY });
    expect(servers[0]).toMatchObject({ url: 'https://api.z.ai/api/mcp/web_search_prime/mcp' });
    expect(servers[3]).toMatchObject({ env: { Z_AI_API_KEY: KEY, Z_AI_MODE: 'ZAI' } });
    expect(glmPlatformOf({ vendor: 'GLM', baseUrl: 'https://api.z.ai/api/coding/paas/v4' })).toBe(
      'zai',
    );
    expect(glmPlatformOf({ baseUrl: 'https://open.bigmodel.cn/api/coding/paas/v4' })).toBe(
      'bigmodel',
    );
    // Not the Coding Plan endpoint, no vendor: not the pack's business.
    expect(glmPlatformOf({ baseUrl: 'https://open.bigmodel.cn/api/paas/v4' })).toBeUndefined();
  });

  it('is empty without a key, with a blank key, for other providers, or with no provider', () => {
    expect(glmPackServers({ vendor: 'glm' })).toEqual([]);
    expect(glmPackServers({ vendor: 'glm', apiKey: '   ' })).toEqual([]);
    expect(glmPackServers({ vendor: 'openai', apiKey: KEY })).toEqual([]);
    expect(
      glmPackServers({ vendor: 'deepseek', apiKey: KEY, baseUrl: 'https://api.deepseek.com/v1' }),
    ).toEqual([]);
    expect(glmPackServers(undefined)).toEqual([]);
    expect(glmPackStatus({ vendor: 'glm', apiKey: '' })).toEqual({
      active: false,
      reason: 'no-api-key',
    });
    expect(glmPackStatus({ vendor: 'openai', apiKey: KEY })).toEqual({
      active: false,
      reason: 'not-glm-provider',
    });
  });

  it('trims the key it copies into memory', () => {
    const [search] = glmPackServers({ vendor: 'glm', apiKey: `  ${KEY}\n` });
    expect(search).toMatchObject({ headers: { Authorization: `Bearer ${KEY}` } });
  });
});

describe('GLM pack merge', () => {
  it('appends the pack after the user servers, which stay unchanged', () => {
    const mine = user(
      '{"memory":{"command":"mcp-memory"},"web":{"url":"https://example.com/mcp"}}',
    );
    const snapshot = structuredClone(mine);
    const merged = mergeGlmPack(GLM, mine);
    expect(merged.servers.map((s) => s.name)).toEqual(['memory', 'web', ...PACK_NAMES]);
    expect(merged.added).toEqual(PACK_NAMES);
    expect(merged.overridden).toEqual([]);
    expect(mine).toEqual(snapshot);
    expect(merged.servers[0]).toBe(mine[0]);
  });

  it('a same-named user entry wins (pinned vision package, private search proxy)', () => {
    const mine = user(
      JSON.stringify({
        mcpServers: {
          'glm-vision': {
            command: 'npx',
            args: ['-y', '@z_ai/mcp-server@0.1.5'],
            env: { Z_AI_API_KEY: 'mine' },
          },
          'glm-search': { url: 'http://127.0.0.1:9000/search' },
        },
      }),
    );
    const merged = mergeGlmPack(GLM, mine);
    expect(merged.servers.map((s) => s.name)).toEqual([
      'glm-vision',
      'glm-search',
      'glm-reader',
      'glm-zread',
    ]);
    expect(merged.overridden).toEqual(['glm-search', 'glm-vision']);
    expect(merged.servers.find((s) => s.name === 'glm-vision')).toMatchObject({
      origin: 'user',
      args: ['-y', '@z_ai/mcp-server@0.1.5'],
    });
    expect(merged.servers.find((s) => s.name === 'glm-search')).toMatchObject({
      origin: 'user',
      url: 'http://127.0.0.1:9000/search',
    });
    // The user's replacement never receives the provider key.
    expect(JSON.stringify(merged.servers.filter((s) => s.origin === 'user'))).not.toContain(KEY);
  });

  it('installed package ids win too', () => {
    const merged = mergeGlmPack(GLM, [], { reservedNames: ['glm-zread'] });
    expect(merged.added).toEqual(['glm-search', 'glm-reader', 'glm-vision']);
    expect(merged.overridden).toEqual(['glm-zread']);
  });

  it('returns the user servers alone when the pack is off', () => {
    const mine = user('{"glm-search":{"url":"https://example.com/mcp"}}');
    for (const provider of [{ vendor: 'glm' }, { vendor: 'openai', apiKey: KEY }, undefined]) {
      const merged = mergeGlmPack(provider, mine);
      expect(merged.servers).toEqual(mine);
      expect(merged.added).toEqual([]);
      expect(merged.overridden).toEqual([]);
    }
  });

  it('is evaluated once: later provider changes do not alter an earlier merge', () => {
    const provider = { vendor: 'glm', apiKey: KEY };
    const merged = mergeGlmPack(provider, []);
    provider.apiKey = 'another-key-value-000';
    provider.vendor = 'openai';
    expect(merged.servers).toHaveLength(4);
    expect(JSON.stringify(merged.servers)).toContain(KEY);
    expect(mergeGlmPack(provider, []).servers).toEqual([]);
  });
});

describe('GLM pack redaction', () => {
  it('describes the pack and its servers without the key', () => {
    const merged = mergeGlmPack(GLM, user('{"glm-reader":{"url":"https://example.com/r"}}'));
    const lines = describeGlmPack(merged);
    expect(lines[0]).toContain('on (https://open.bigmodel.cn');
    expect(lines[0]).toContain('[REDACTED]');
    expect(lines).toContain('  glm-reader: replaced by your mcp.json entry');
    const shown = [
      ...lines,
      ...merged.servers.map((s) => JSON.stringify(describeServerConfig(s))),
      JSON.stringify(merged.status),
      inspect(merged.status),
    ].join('\n');
    expect(shown).not.toContain(KEY);
    expect(shown).toContain('Authorization');
    expect(shown).toContain('Z_AI_API_KEY');
    // Anything that does print a pack config goes through the kernel redactor with the key.
    expect(redactSecrets(JSON.stringify(merged.servers), [KEY])).not.toContain(KEY);
    expect(describeGlmPack(mergeGlmPack({ vendor: 'glm' }, []))).toEqual([
      'GLM Coding Plan pack: off (the GLM provider has no API key)',
    ]);
  });
});

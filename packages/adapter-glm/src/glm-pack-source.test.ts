import { MCP_KIND } from '@clat/adapter-mcp';
import { collectMountSources } from '@clat/kernel';
import { describe, expect, it } from 'vitest';
import { glmPackSource } from './glm-pack-source.js';

const KEY = 'glmkey.0123456789abcdefABCDEF';

describe('glmPackSource', () => {
  it('mounts the pack servers no earlier name took and says so, without the key', async () => {
    const source = glmPackSource({ provider: { vendor: 'glm', apiKey: KEY } });
    expect(source.label).toBe('GLM pack server');
    const out = await source.collect({ taken: new Set(['glm-reader', 'mine']) });
    expect(out.entries.map((entry) => [entry.kind, entry.name, entry.origin])).toEqual([
      [MCP_KIND, 'glm-search', 'glm-pack'],
      [MCP_KIND, 'glm-zread', 'glm-pack'],
      [MCP_KIND, 'glm-vision', 'glm-pack'],
    ]);
    expect(out.entries[0]?.config).toMatchObject({
      url: 'https://open.bigmodel.cn/api/mcp/web_search_prime/mcp',
      headers: { Authorization: `Bearer ${KEY}` },
    });
    expect(out.notes).toEqual([
      'GLM Coding Plan pack: on (https://open.bigmodel.cn, key from model credentials: [REDACTED])',
      '  glm-search: added',
      '  glm-zread: added',
      '  glm-vision: added',
      '  glm-reader: replaced by your mcp.json entry',
    ]);
    expect(JSON.stringify(out.notes)).not.toContain(KEY);
    expect(out.issues).toEqual([]);
    expect(out.prompts).toEqual([]);
  });

  it('contributes nothing, and no note, for no provider, another provider or no key', async () => {
    for (const provider of [
      undefined,
      { vendor: 'openai', apiKey: KEY },
      { vendor: 'glm', apiKey: ' ' },
    ]) {
      const out = await glmPackSource({ provider }).collect({ taken: new Set() });
      expect(out).toEqual({ entries: [], issues: [], notes: [], prompts: [] });
    }
  });

  it('comes after the other sources in collectMountSources and never shadows them', async () => {
    const out = await collectMountSources(
      [
        {
          label: 'installed package',
          collect: async () => ({
            entries: [{ kind: MCP_KIND, name: 'glm-vision', origin: 'package', config: {} }],
            issues: [],
            notes: [],
            prompts: [],
          }),
        },
        glmPackSource({ provider: { vendor: 'zai', apiKey: KEY } }),
      ],
      { taken: ['glm-search'] },
    );
    expect(out.entries.map((entry) => `${entry.origin}:${entry.name}`)).toEqual([
      'package:glm-vision',
      'glm-pack:glm-reader',
      'glm-pack:glm-zread',
    ]);
    expect(out.notes.filter((note) => note.includes('replaced'))).toEqual([
      '  glm-search: replaced by your mcp.json entry',
      '  glm-vision: replaced by your mcp.json entry',
    ]);
  });
});

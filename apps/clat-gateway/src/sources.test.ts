import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { readGatewaySources } from './sources.js';

let dir = '';
afterEach(() => {
  if (dir !== '') rmSync(dir, { recursive: true, force: true });
  dir = '';
});

const KEY = 'glmkey.0123456789abcdefABCDEF';

function write(file: string, value: unknown): void {
  mkdirSync(join(file, '..'), { recursive: true });
  writeFileSync(file, typeof value === 'string' ? value : JSON.stringify(value));
}

describe('readGatewaySources', () => {
  it('puts mcp.json first, the user file before the project, then plugins.json and the pack', async () => {
    dir = mkdtempSync(join(tmpdir(), 'gateway-sources-'));
    const home = join(dir, 'home');
    const project = join(dir, 'project');
    write(join(home, 'mcp.json'), {
      mcpServers: {
        shared: { command: 'user-shared' },
        off: { command: 'off', disabled: true },
        'glm-search': { command: 'my-search' },
      },
    });
    write(join(project, '.clat', 'mcp.json'), {
      mcpServers: { shared: { command: 'project-shared' }, local: { command: 'local' } },
    });
    // `off` is disabled, yet its name still wins over the plugins.json entry.
    write(join(home, 'plugins.json'), { off: { path: 'off.wasm' }, comp: { path: 'c.wasm' } });
    write(join(home, 'config.json'), {
      provider: {
        kind: 'openai-compatible',
        vendor: 'glm',
        baseUrl: 'https://open.bigmodel.cn/api/coding/paas/v4',
        apiKey: KEY,
        model: 'glm-4.6',
      },
    });

    const out = await readGatewaySources(home, project, {});
    expect(out.issues).toEqual([]);
    expect(out.entries.map((entry) => `${entry.origin}:${entry.name}`)).toEqual([
      'user:shared',
      'user:glm-search',
      'project:local',
      'plugins.json:comp',
      'glm-pack:glm-reader',
      'glm-pack:glm-zread',
      'glm-pack:glm-vision',
    ]);
    expect(out.notes).toEqual([
      `"off" is disabled in ${join(home, 'mcp.json')}`,
      `${join(project, '.clat', 'mcp.json')} entry "shared" is replaced by the user's`,
      'plugins.json entry "off" is replaced by the same-named entry before it',
      'GLM Coding Plan pack: on (https://open.bigmodel.cn, key from model credentials: [REDACTED])',
      '  glm-reader: added',
      '  glm-zread: added',
      '  glm-vision: added',
      '  glm-search: replaced by your mcp.json entry',
    ]);
  });

  it('reports a broken config.json as an issue and mounts no pack', async () => {
    dir = mkdtempSync(join(tmpdir(), 'gateway-sources-'));
    const home = join(dir, 'home');
    write(join(home, 'config.json'), '{ nope');
    const out = await readGatewaySources(home, join(dir, 'project'), {});
    expect(out.entries).toEqual([]);
    expect(out.issues).toMatchObject([
      {
        file: join(home, 'config.json'),
        path: '(root)',
        message: expect.stringContaining('not valid JSON'),
      },
    ]);
  });
});

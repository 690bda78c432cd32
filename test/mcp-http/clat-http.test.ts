import { readdir, readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, type ClatResult, CliSandbox, parseJsonOutput } from '../cli/support.js';
import {
  type HttpFixture,
  startDualEraServer,
  startFaultServer,
  startServerEverything,
  stopAllHttpFixtures,
} from '../fixtures/http-servers/spawn.js';

// Remote servers and the GLM pack as a user meets them: ~/.clat/mcp.json with HTTP entries that
// carry an Authorization header, a GLM provider whose key comes from the environment, and the real
// `clat mcp`. Secrets must not reach the output or any file CLAT writes under its home.

const require = createRequire(import.meta.url);
const HEADER_SECRET = 'Bearer clat-http-secret-1a2b3c4d5e6f';
const GLM_KEY = 'dummy0000clathttp0000glm';

interface StatusJson {
  servers: {
    name: string;
    state: string;
    transport: string;
    tools: number;
    era?: string;
    failure?: string;
  }[];
}

let sandbox: CliSandbox;
let everything: HttpFixture;
let dual: HttpFixture;
let broken: HttpFixture;
let json: ClatResult;
let text: ClatResult;

beforeAll(async () => {
  assertBuilt();
  [everything, dual, broken] = await Promise.all([
    startServerEverything(),
    startDualEraServer(),
    startFaultServer('echo-auth-500'),
  ]);
  sandbox = new CliSandbox();
  await sandbox.setup();
  await sandbox.writeConfig({
    provider: {
      kind: 'openai-compatible',
      vendor: 'glm',
      model: 'glm-4.6',
      apiKeyEnv: 'Z_AI_API_KEY',
    },
  });
  await sandbox.writeMcp({
    mcpServers: {
      'legacy-remote': {
        url: `${everything.origin}/mcp`,
        headers: { Authorization: HEADER_SECRET },
      },
      'modern-remote': { url: `${dual.origin}/`, headers: { Authorization: HEADER_SECRET } },
      'echoing-proxy': { url: `${broken.origin}/mcp`, headers: { Authorization: HEADER_SECRET } },
      // Same-named entries replace the pack (offline: no api.z.ai, no npx download).
      'glm-search': { url: `${dual.origin}/` },
      'glm-reader': { url: `${dual.origin}/` },
      'glm-zread': { url: `${dual.origin}/` },
      'glm-vision': {
        ...sandbox.node(require.resolve('@z_ai/mcp-server/build/index.js')),
        env: { Z_AI_API_KEY: 'dummy0000pinned', ZAI_MCP_LOG_PATH: join(sandbox.root, 'zai.log') },
      },
    },
  });
  const env = { Z_AI_API_KEY: GLM_KEY };
  json = await sandbox.run(['mcp', '--json', '--trust'], { env, timeoutMs: 90_000 });
  text = await sandbox.run(['mcp', '--trust'], { env, timeoutMs: 90_000 });
}, 200_000);

afterAll(async () => {
  const survivors = sandbox?.survivors() ?? [];
  await sandbox?.cleanup();
  await stopAllHttpFixtures();
  expect(survivors).toEqual([]);
});

describe('clat mcp with Streamable HTTP servers and the GLM pack', () => {
  it('connects legacy and modern HTTP servers and isolates the broken one', () => {
    // The echoing proxy fails by design: `clat mcp` reports it and exits 1.
    expect(json.code, json.stderr).toBe(1);
    const status = parseJsonOutput<StatusJson>(json);
    const byName = Object.fromEntries(status.servers.map((s) => [s.name, s]));
    expect(byName['legacy-remote']).toMatchObject({
      state: 'connected',
      transport: 'http',
      era: 'legacy',
    });
    expect(byName['legacy-remote']?.tools).toBeGreaterThan(10);
    expect(byName['modern-remote']).toMatchObject({
      state: 'connected',
      transport: 'http',
      era: 'modern',
      tools: 4,
    });
    expect(byName['echoing-proxy']).toMatchObject({ state: 'failed', transport: 'http' });
    expect(byName['echoing-proxy']?.failure).toContain(`${broken.origin}`);
    expect(byName['echoing-proxy']?.failure).toContain('HTTP 500');
  });

  it('user entries replace all four pack servers', () => {
    const status = parseJsonOutput<StatusJson>(json);
    const byName = Object.fromEntries(status.servers.map((s) => [s.name, s]));
    for (const name of ['glm-search', 'glm-reader', 'glm-zread']) {
      expect(byName[name]).toMatchObject({ state: 'connected', transport: 'http', era: 'modern' });
    }
    expect(byName['glm-vision']).toMatchObject({
      state: 'connected',
      transport: 'stdio',
      tools: 8,
    });
    expect(status.servers.filter((s) => s.name.startsWith('glm-'))).toHaveLength(4);
  });

  it('never prints the header secret or the provider key', () => {
    for (const output of [json.stdout, json.stderr, text.stdout, text.stderr]) {
      expect(output).not.toContain('clat-http-secret');
      expect(output).not.toContain(GLM_KEY);
    }
    expect(text.stdout).toMatch(/modern-remote\s+http\s+connected/);
  });

  it('writes neither secret into any file under the CLAT home except the user-managed mcp.json', async () => {
    const files = await listFiles(sandbox.home);
    expect(files.length).toBeGreaterThan(1);
    for (const file of files) {
      const body = await readFile(file, 'utf8').catch(() => '');
      expect(body.includes(GLM_KEY), file).toBe(false);
      if (file === join(sandbox.home, 'mcp.json')) continue;
      expect(body.includes('clat-http-secret'), file).toBe(false);
    }
  });
});

async function listFiles(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...(await listFiles(path)));
    else if (entry.isFile()) out.push(path);
  }
  return out;
}

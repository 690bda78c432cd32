/**
 * Mount sources besides mcp.json through the real `clat` binary: an installed mcp-stdio package
 * (clat plugin install), a WASM component from plugins.json, and the GLM Coding Plan pack, with a
 * same-named mcp.json entry winning over each.
 */
import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { prepareComponent, wasmCacheDir } from '@clat/adapter-wasm';
import { describe, expect, it } from 'vitest';
import {
  NOTES_SERVER,
  parseJsonOutput,
  REPO_ROOT,
  useCliSandbox,
  WASM_COMPONENT,
  WASM_MANIFEST,
} from './support.js';

const NOTES_PACKAGE = join(REPO_ROOT, 'plugins/mcp-notes/dist/package');

interface StatusJson {
  connected: number;
  notes: string[];
  servers: {
    name: string;
    origin: string;
    transport: string;
    state: string;
    tools: number;
    prompts: number;
    failure?: string;
  }[];
}

const sandbox = useCliSandbox(
  async () => {
    await sandbox.run(['trust']);
  },
  {
    // Servers of installed packages run from the plugin store, without the sandbox's marker.
    teardown: () => {
      expect(sandbox.survivors(join(sandbox.home, 'plugin-store'))).toEqual([]);
    },
  },
);

describe('mount sources', () => {
  it('mounts an installed mcp-stdio package with its static prompt; a user entry wins', async () => {
    const install = await sandbox.run([
      'plugin',
      'install',
      NOTES_PACKAGE,
      '--accept-capabilities',
    ]);
    expect(install.code).toBe(0);
    const status = parseJsonOutput<StatusJson>(await sandbox.run(['mcp', '--json']));
    expect(status.servers).toEqual([
      expect.objectContaining({
        name: 'mcp-notes',
        origin: 'package',
        state: 'connected',
        tools: 5,
        prompts: 0,
        systemPrompts: 1,
      }),
    ]);
    const added = await sandbox.run([
      'call',
      'mcp_mcp_notes_add_note',
      '{"title":"pkg","body":"from the installed package"}',
    ]);
    expect(added.code).toBe(0);
    expect(existsSync(join(sandbox.home, 'plugin-data', 'mcp-notes', 'notes.json'))).toBe(true);

    await sandbox.writeMcp({ 'mcp-notes': sandbox.notesServer() });
    const replaced = parseJsonOutput<StatusJson>(await sandbox.run(['mcp', '--json']));
    expect(replaced.servers).toEqual([
      // The shadowed package's static prompt does not ride along with the user's server.
      expect.objectContaining({
        name: 'mcp-notes',
        origin: 'user',
        state: 'connected',
        prompts: 0,
      }),
    ]);
    expect(replaced.notes).toContain(
      'installed package "mcp-notes" is replaced by the same-named entry before it',
    );
  });

  it('mounts a WASM component from plugins.json next to MCP servers', async () => {
    // Warm the jco transpile cache first: the first run waits for the surface only so long.
    await prepareComponent({ componentPath: WASM_COMPONENT, cacheDir: wasmCacheDir(sandbox.home) });
    await writeFile(
      join(sandbox.home, 'plugins.json'),
      JSON.stringify({ 'wasm-summarize': { manifest: WASM_MANIFEST } }),
    );
    await sandbox.writeMcp({ notes: sandbox.notesServer() });
    const status = parseJsonOutput<StatusJson>(await sandbox.run(['mcp', '--json']));
    expect(status.connected).toBe(2);
    expect(status.servers.find((server) => server.name === 'wasm-summarize')).toMatchObject({
      transport: 'wasm',
      origin: 'plugins.json',
      state: 'connected',
      tools: 3,
    });
    const counted = await sandbox.run([
      'call',
      'wasm_wasm_summarize_word_count',
      '{"text":"one two three"}',
    ]);
    expect(counted.stderr).toBe('');
    expect(JSON.parse(counted.stdout)).toEqual({ words: 3 });
  });

  it('merges the GLM pack for a GLM provider; same-named user entries replace pack servers', async () => {
    const key = 'sk-glm-e2e-0123456789abcdef';
    await sandbox.writeConfig({
      provider: { kind: 'openai-compatible', vendor: 'glm', model: 'glm-4.6', apiKey: key },
    });
    const names = ['glm-search', 'glm-reader', 'glm-zread', 'glm-vision'];
    await sandbox.writeMcp(
      Object.fromEntries(
        names.map((name) => [
          name,
          { ...sandbox.node(NOTES_SERVER), env: { MCP_NOTES_DIR: join(sandbox.root, name) } },
        ]),
      ),
    );
    const result = await sandbox.run(['mcp', '--json']);
    const status = parseJsonOutput<StatusJson>(result);
    expect(status.notes[0]).toMatch(/^GLM Coding Plan pack: on \(https:\/\/open\.bigmodel\.cn/);
    for (const name of names) {
      expect(status.notes).toContain(`  ${name}: replaced by your mcp.json entry`);
    }
    expect(status.servers.map((server) => [server.name, server.origin, server.state])).toEqual(
      names.map((name) => [name, 'user', 'connected']),
    );
    expect(`${result.stdout}${result.stderr}`).not.toContain(key);
  });
});

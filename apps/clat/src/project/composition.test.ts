import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { mcpEntry } from '@clat/adapter-mcp';
import { PLUGINS_FILE, WASM_KIND } from '@clat/adapter-wasm';
import { REGISTRY_FILE, STORE_DIR } from '@clat/packaging';
import { afterEach, describe, expect, it } from 'vitest';
import { resolveClatHome } from '../config/clat-home.js';
import {
  defaultComposition,
  PLUGINS_JSON,
  STORE_REGISTRY,
  WASM_ENTRY_KIND,
} from './composition.js';

let dir = '';
afterEach(() => {
  if (dir !== '') rmSync(dir, { recursive: true, force: true });
  dir = '';
});

describe('defaultComposition', () => {
  it('names the files and kinds of the packages it loads on demand as they do', () => {
    expect(WASM_ENTRY_KIND).toBe(WASM_KIND);
    expect(PLUGINS_JSON).toBe(PLUGINS_FILE);
    expect(STORE_REGISTRY).toEqual([STORE_DIR, REGISTRY_FILE]);
  });

  it('wires the MCP connector always and the WASM connector only for WASM entries', async () => {
    dir = mkdtempSync(join(tmpdir(), 'clat-composition-'));
    const home = resolveClatHome({ CLAT_HOME: dir }, dir);
    const composition = defaultComposition();
    const stdio = mcpEntry({ name: 's', origin: 'user', transport: 'stdio', command: 'node' });
    const none = await composition.connectors({ env: {}, home, entries: [] });
    expect(none.map((connector) => connector.kind)).toEqual(['mcp']);
    const mcp = await composition.connectors({ env: {}, home, entries: [stdio] });
    expect(mcp[0]?.describe?.(stdio)).toEqual({ transport: 'stdio', target: 'node', secrets: [] });
    const wasm = { kind: WASM_ENTRY_KIND, name: 'w', origin: 'plugins.json', config: {} };
    const both = await composition.connectors({ env: {}, home, entries: [stdio, wasm] });
    expect(both.map((connector) => connector.kind)).toEqual(['mcp', 'wasm']);
  });

  it('offers the resource tools over the mount', () => {
    const mount = {
      catalog: () => undefined,
      catalogNames: () => [],
      summary: () => ({ servers: [] }),
    };
    const tools = defaultComposition().hostTools?.({ mount }) ?? [];
    expect(tools.map((tool) => [tool.definition.name, tool.definition.effect])).toEqual([
      ['list_resources', 'external-read'],
      ['read_resource', 'external-read'],
    ]);
  });

  it('loads the plugins.json and package-store sources only when their files exist', async () => {
    dir = mkdtempSync(join(tmpdir(), 'clat-composition-'));
    const home = resolveClatHome({ CLAT_HOME: dir }, dir);
    const user = {
      file: home.configFile,
      provider: undefined,
      mode: undefined,
      issues: [],
      modelIssues: [],
      modeUnknown: false,
    };
    const composition = defaultComposition();
    const labels = async () =>
      (await composition.sources({ home, env: {}, user })).map((source) => source.label);
    expect(await labels()).toEqual(['GLM pack server']);
    writeFileSync(join(dir, PLUGINS_FILE), '{}');
    mkdirSync(join(dir, STORE_DIR));
    writeFileSync(join(dir, STORE_DIR, REGISTRY_FILE), '{"version":1,"packages":{}}');
    expect(await labels()).toEqual(['plugins.json entry', 'installed package', 'GLM pack server']);
  });
});

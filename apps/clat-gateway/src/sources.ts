/**
 * What the gateway mounts, in `clat`'s order and precedence: the user's mcp.json, the project's
 * `.clat/mcp.json` (the user's wins a shared name), `${VAR}` expanded at mount; then plugins.json
 * WASM plugins, installed packages (MCP servers, WASM components, their static prompts, DSH
 * plugins packaged as stdio servers) and the GLM Coding Plan pack when config.json names a GLM
 * provider. A same-named entry that comes first always wins.
 * @module
 */
import { join } from 'node:path';
import { type GlmProviderDescriptor, mergeGlmPack } from '@clat/adapter-glm';
import {
  expandServerVariables,
  type McpServerConfig,
  mcpEntry,
  parseMcpConfig,
} from '@clat/adapter-mcp';
import { loadPluginsJson, PLUGINS_FILE, WASM_KIND, type WasmEntryConfig } from '@clat/adapter-wasm';
import type { ConfigIssue, MountEntry, PromptContribution } from '@clat/kernel';
import { installedServerEntries, REGISTRY_FILE, STORE_DIR } from '@clat/packaging';
import { resolveProviderConfig } from '@clat/provider-openai';
import { readOptional } from './project-home.js';

export interface GatewaySources {
  entries: MountEntry[];
  prompts: PromptContribution[];
  issues: ConfigIssue[];
  /** One line per source decision (disabled or replaced entries, GLM pack). */
  notes: string[];
}

function wasmEntry(name: string, origin: string, config: WasmEntryConfig): MountEntry {
  return { kind: WASM_KIND, name, origin, config };
}

/** The provider of config.json as the GLM pack reads it; problems become issues. */
async function glmProvider(
  file: string,
  env: NodeJS.ProcessEnv,
  issues: ConfigIssue[],
): Promise<GlmProviderDescriptor | undefined> {
  const text = await readOptional(file);
  if (text === undefined) return undefined;
  let raw: unknown;
  try {
    raw = (JSON.parse(text) as { provider?: unknown } | null)?.provider;
  } catch (error) {
    issues.push({ file, path: '(root)', message: `not valid JSON (${(error as Error).message})` });
    return undefined;
  }
  if (raw === undefined) return undefined;
  const resolved = resolveProviderConfig(file, raw, env);
  if ('issues' in resolved) {
    issues.push(...resolved.issues);
    return undefined;
  }
  const { vendor, baseUrl, apiKey } = resolved.config;
  return { vendor, baseUrl, apiKey };
}

/** Reads every source of `home` for the trusted `projectRoot`; nothing is spawned here. */
export async function readGatewaySources(
  home: string,
  projectRoot: string,
  env: NodeJS.ProcessEnv,
): Promise<GatewaySources> {
  const out: GatewaySources = { entries: [], prompts: [], issues: [], notes: [] };
  const taken = new Set<string>();
  const add = (entry: MountEntry, what: string): boolean => {
    if (taken.has(entry.name)) {
      out.notes.push(
        `${what} ${JSON.stringify(entry.name)} is replaced by the same-named entry before it`,
      );
      return false;
    }
    taken.add(entry.name);
    out.entries.push(entry);
    return true;
  };

  // mcp.json: the user's file, then the project's own; disabled entries still reserve the name.
  const configured: McpServerConfig[] = [];
  for (const [file, origin] of [
    [join(home, 'mcp.json'), 'user'],
    [join(projectRoot, '.clat', 'mcp.json'), 'project'],
  ] as const) {
    const text = await readOptional(file);
    if (text === undefined) continue;
    const parsed = parseMcpConfig(file, text, origin);
    out.issues.push(...parsed.issues);
    for (const server of parsed.servers) {
      if (taken.has(server.name)) {
        out.notes.push(`${file} entry ${JSON.stringify(server.name)} is replaced by the user's`);
        continue;
      }
      taken.add(server.name);
      configured.push(server);
      if (server.disabled === true) {
        out.notes.push(`${JSON.stringify(server.name)} is disabled in ${file}`);
        continue;
      }
      const expanded = expandServerVariables(server, { file, env, projectRoot });
      if ('server' in expanded) out.entries.push(mcpEntry(expanded.server));
      else out.issues.push(...expanded.issues);
    }
  }

  const pluginsFile = join(home, PLUGINS_FILE);
  const plugins = await loadPluginsJson(pluginsFile, { clatHome: home });
  for (const issue of plugins.issues) {
    out.issues.push({ file: pluginsFile, path: issue.id, message: issue.message });
  }
  for (const entry of plugins.entries) {
    add(
      wasmEntry(entry.id, 'plugins.json', {
        dirs: entry.dirs,
        validateConfig: true,
        ...(entry.path === undefined ? {} : { path: entry.path }),
        ...(entry.manifest === undefined ? {} : { manifest: entry.manifest }),
        ...(entry.sha256 === undefined ? {} : { sha256: entry.sha256 }),
        ...(entry.config === undefined ? {} : { config: entry.config }),
      }),
      'plugins.json entry',
    );
  }

  const registryFile = join(home, STORE_DIR, REGISTRY_FILE);
  const installed = await installedServerEntries(home);
  if (installed.registryError !== undefined) {
    out.issues.push({ file: registryFile, path: '(root)', message: installed.registryError });
  }
  for (const issue of installed.issues) {
    out.issues.push({ file: registryFile, path: issue.id, message: issue.message });
  }
  for (const note of installed.notes) out.notes.push(note.message);
  const packages = new Set<string>();
  for (const server of installed.servers) {
    if (add(mcpEntry(server), 'installed package')) packages.add(server.name);
  }
  for (const component of installed.components) {
    const entry = wasmEntry(component.id, 'package', {
      manifest: component.dir,
      dirs: [],
      ...(component.config === undefined ? {} : { config: component.config }),
    });
    if (add(entry, 'installed package')) packages.add(component.id);
  }
  // A package's static prompts come only with its own server, not when a user entry shadows it.
  for (const prompt of installed.prompts) {
    if (!packages.has(prompt.server)) continue;
    out.prompts.push({
      name: `package_${prompt.server}_${prompt.name}`.replace(/[^A-Za-z0-9_]/g, '_'),
      source: { kind: 'package', id: prompt.server },
      text: prompt.system,
    });
  }

  const provider = await glmProvider(join(home, 'config.json'), env, out.issues);
  const glm = mergeGlmPack(provider, configured, { reservedNames: taken });
  for (const server of glm.servers.slice(configured.length)) {
    add(mcpEntry(server), 'GLM pack server');
  }
  return out;
}

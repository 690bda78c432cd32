/**
 * What the gateway mounts, in `clat`'s order and precedence: the user's mcp.json, the project's
 * `.clat/mcp.json` (the user's wins a shared name), `${VAR}` expanded at mount; then the adapters'
 * mount sources: plugins.json WASM plugins, installed packages (with their static prompts) and
 * the GLM Coding Plan pack when config.json names a GLM provider. A same-named entry that comes
 * first always wins (`collectMountSources`).
 * @module
 */
import { join } from 'node:path';
import { type GlmProviderDescriptor, glmPackSource } from '@clat/adapter-glm';
import {
  expandServerVariables,
  mcpEntry,
  parseMcpConfig,
  relativePathNote,
} from '@clat/adapter-mcp';
import { PLUGINS_FILE, pluginsJsonSource } from '@clat/adapter-wasm';
import {
  type ConfigIssue,
  collectMountSources,
  describeJsonSyntaxError,
  type MountEntry,
  type PromptContribution,
} from '@clat/kernel';
import { packageStoreSource } from '@clat/packaging';
import { resolveProviderConfig } from '@clat/provider-openai';
import { readOptional } from './project-home.js';

export interface GatewaySources {
  entries: MountEntry[];
  prompts: PromptContribution[];
  issues: ConfigIssue[];
  /** One line per source decision (disabled or replaced entries, GLM pack). */
  notes: string[];
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
  } catch {
    issues.push({
      file,
      path: '(root)',
      message: `not valid JSON (${describeJsonSyntaxError(text)})`,
    });
    return undefined;
  }
  if (raw === undefined) return undefined;
  const resolved = resolveProviderConfig(file, raw, env);
  if ('issues' in resolved) {
    issues.push(...resolved.issues);
    return undefined;
  }
  return resolved.config;
}

/** Reads every source of `home` for the trusted `projectRoot`; nothing is spawned here. */
export async function readGatewaySources(
  home: string,
  projectRoot: string,
  env: NodeJS.ProcessEnv,
): Promise<GatewaySources> {
  const out: GatewaySources = { entries: [], prompts: [], issues: [], notes: [] };
  const taken = new Set<string>();

  // mcp.json: the user's file, then the project's own; disabled entries still reserve the name.
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
      if (server.disabled === true) {
        out.notes.push(`${JSON.stringify(server.name)} is disabled in ${file}`);
        continue;
      }
      // Servers run in the CLAT home, as under `clat`: a project file's relative path names
      // nothing there.
      const relative = origin === 'project' ? relativePathNote(server, file, home) : undefined;
      if (relative !== undefined) out.notes.push(relative);
      const expanded = expandServerVariables(server, { file, env, projectRoot });
      if ('server' in expanded) out.entries.push(mcpEntry(expanded.server));
      else out.issues.push(...expanded.issues);
    }
  }

  const providerIssues: ConfigIssue[] = [];
  const provider = await glmProvider(join(home, 'config.json'), env, providerIssues);
  const extra = await collectMountSources(
    [
      pluginsJsonSource({ file: join(home, PLUGINS_FILE), clatHome: home }),
      packageStoreSource({ clatHome: home, env }),
      glmPackSource({ provider }),
    ],
    { taken },
  );
  out.entries.push(...extra.entries);
  out.prompts.push(...extra.prompts);
  out.issues.push(...extra.issues, ...providerIssues);
  out.notes.push(...extra.notes);
  return out;
}

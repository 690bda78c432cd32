/**
 * `~/.clat/plugins.json`: the developer/override list of WASM plugins, id → `{ path | manifest,
 * dirs?, config?, sensitive?, sha256? }`. A file that is not JSON is fatal; a bad entry is
 * reported with its id and field and skipped, so one typo never hides the other plugins.
 * @module
 */
import { readFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { dirname, isAbsolute, join, resolve, sep } from 'node:path';
import {
  type ConfigIssue,
  describeJsonSyntaxError,
  formatZodIssues,
  LIMITS,
  NATIVE_HOST_TOOLS,
  parseManifest,
  parseSha256,
  sensitiveKeys,
} from '@clat/kernel';
import * as z from 'zod';
import { WasmError, WasmErrorCode } from './errors.js';

export const PLUGINS_FILE = 'plugins.json';
export const MANIFEST_FILE = 'clat-plugin.json';

/** The capability ceiling of a manifest-backed plugin; path-only plugins have none. */
export interface WasmCapabilities {
  /** `false` refuses a component that exports tools; undefined (older callers) does not check. */
  tools?: boolean;
  hostContext: boolean;
  sampling: boolean;
  elicitation: boolean;
  hostTools: readonly string[];
}

/** One valid plugins.json entry, paths resolved. */
export interface WasmPluginEntry {
  id: string;
  /** Absolute path of the component. Set for `path` entries; manifest entries resolve later. */
  path?: string;
  /** Absolute path of a `clat-plugin.json` (or its package directory). */
  manifest?: string;
  dirs: string[];
  config?: unknown;
  /** Keys of `config` whose values are secrets (the host redacts them from status). */
  sensitive?: string[];
  sha256?: string;
}

export interface PluginsJsonIssue {
  id: string;
  message: string;
}

export interface ParsedPluginsJson {
  entries: WasmPluginEntry[];
  issues: PluginsJsonIssue[];
}

export interface PluginPathOptions {
  clatHome: string;
  home?: string;
}

function issueText(issues: readonly ConfigIssue[]): string {
  return issues
    .map((issue) => `${issue.path === '' ? '' : `${issue.path}: `}${issue.message}`)
    .join('; ');
}

const ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

const EntrySchema = z
  .object({
    path: z.string().min(1).optional(),
    manifest: z.string().min(1).optional(),
    dirs: z.array(z.string().min(1)).max(64).optional(),
    config: z.unknown().optional(),
    sensitive: z.array(z.string().min(1, 'must be a non-empty key of "config"')).max(64).optional(),
    sha256: z
      .string()
      .refine((value) => parseSha256(value) !== undefined, 'must be a SHA-256 hex digest')
      .optional(),
  })
  .strict();

/** `~/` → home, relative → the CLAT home, absolute as given. */
export function resolvePluginPath(path: string, options: PluginPathOptions): string {
  if (path === '~' || path.startsWith('~/')) return join(options.home ?? homedir(), path.slice(1));
  return isAbsolute(path) ? path : resolve(options.clatHome, path);
}

/** Parses plugins.json text. Throws WASM_CONFIG_INVALID only when the file as a whole is bad. */
export function parsePluginsJson(
  text: string,
  options: PluginPathOptions & { file?: string },
): ParsedPluginsJson {
  const file = options.file ?? PLUGINS_FILE;
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new WasmError(
      WasmErrorCode.WASM_CONFIG_INVALID,
      `${file} is not valid JSON: ${describeJsonSyntaxError(text)}`,
    );
  }
  if (typeof json !== 'object' || json === null || Array.isArray(json)) {
    throw new WasmError(
      WasmErrorCode.WASM_CONFIG_INVALID,
      `${file} must be a JSON object mapping plugin ids to entries`,
    );
  }
  const entries: WasmPluginEntry[] = [];
  const issues: PluginsJsonIssue[] = [];
  for (const [id, raw] of Object.entries(json)) {
    const fail = (message: string) =>
      issues.push({ id, message: `${file}: plugin ${JSON.stringify(id)}: ${message}` });
    if (!ID_PATTERN.test(id)) {
      fail('the id must be 1-128 characters of letters, digits, ".", "_" or "-"');
      continue;
    }
    const parsed = EntrySchema.safeParse(raw);
    if (!parsed.success) {
      fail(issueText(formatZodIssues(file, id, parsed.error)));
      continue;
    }
    const entry = parsed.data;
    if ((entry.path === undefined) === (entry.manifest === undefined)) {
      fail('set exactly one of "path" (a .wasm component) or "manifest" (a clat-plugin.json)');
      continue;
    }
    if (entry.config !== undefined) {
      const bytes = Buffer.byteLength(JSON.stringify(entry.config) ?? '');
      if (bytes > LIMITS.pluginConfigBytes) {
        fail(`"config" is ${bytes} bytes, over the ${LIMITS.pluginConfigBytes}-byte limit`);
        continue;
      }
    }
    if (entry.sensitive !== undefined) {
      const config = entry.config;
      if (typeof config !== 'object' || config === null || Array.isArray(config)) {
        fail('"sensitive" names keys of "config", but "config" is not an object');
        continue;
      }
      const unknown = entry.sensitive.find((key) => !Object.hasOwn(config, key));
      if (unknown !== undefined) {
        fail(
          `"sensitive" names ${JSON.stringify(unknown)}, which is not a key of "config" (keys: ${
            Object.keys(config)
              .map((key) => JSON.stringify(key))
              .join(', ') || 'none'
          })`,
        );
        continue;
      }
    }
    const resolved: WasmPluginEntry = {
      id,
      dirs: (entry.dirs ?? []).map((dir) => resolvePluginPath(dir, options)),
    };
    if (entry.path !== undefined) resolved.path = resolvePluginPath(entry.path, options);
    if (entry.manifest !== undefined)
      resolved.manifest = resolvePluginPath(entry.manifest, options);
    if (entry.config !== undefined) resolved.config = entry.config;
    if (entry.sensitive !== undefined) resolved.sensitive = [...new Set(entry.sensitive)];
    if (entry.sha256 !== undefined) resolved.sha256 = parseSha256(entry.sha256) as string;
    entries.push(resolved);
  }
  return { entries, issues };
}

/** Reads plugins.json; a missing file is an empty list. */
export async function loadPluginsJson(
  path: string,
  options: PluginPathOptions,
): Promise<ParsedPluginsJson> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { entries: [], issues: [] };
    throw new WasmError(
      WasmErrorCode.WASM_CONFIG_INVALID,
      `${path} cannot be read: ${(error as NodeJS.ErrnoException).code ?? String(error)}`,
      { cause: error },
    );
  }
  return parsePluginsJson(text, { ...options, file: path });
}

// configSchema is checked as `clat plugin install` does: `type: object` needs an object config
// with every `required` key. Returns the problem, or undefined.
function missingConfigKeys(
  schema: Record<string, unknown> | undefined,
  config: unknown,
): string | undefined {
  if (schema === undefined || schema.type !== 'object') return undefined;
  const required = Array.isArray(schema.required)
    ? schema.required.filter((key): key is string => typeof key === 'string')
    : [];
  const names = (keys: string[]) => keys.map((key) => JSON.stringify(key)).join(', ');
  if (config === undefined) {
    return required.length === 0
      ? undefined
      : `configSchema requires ${names(required)}, but the plugins.json entry has no "config"`;
  }
  if (typeof config !== 'object' || config === null || Array.isArray(config)) {
    return 'configSchema says type object, but the plugins.json "config" is not an object';
  }
  const missing = required.filter((key) => !Object.hasOwn(config, key));
  return missing.length === 0
    ? undefined
    : `the plugins.json "config" lacks required field(s) ${names(missing)}`;
}

/** What a manifest-backed entry resolves to. */
export interface ResolvedManifest {
  componentPath: string;
  sha256?: string;
  capabilities: WasmCapabilities;
  /** Keys of the manifest's `userConfig` marked `sensitive`. */
  sensitive: string[];
}

export interface ResolveManifestOptions {
  /**
   * Check `entry.config` against the manifest's configSchema (a missing config counts). Off by
   * default for callers that hold the config elsewhere, e.g. installed packages whose config the
   * store validated at install.
   */
  validateConfig?: boolean;
}

/** Reads and checks the manifest of a `manifest` entry: id, runtime kind, entry path, pins. */
export async function resolveManifestEntry(
  entry: WasmPluginEntry,
  options: ResolveManifestOptions = {},
): Promise<ResolvedManifest> {
  const location = entry.manifest as string;
  const file = location.endsWith('.json') ? location : join(location, MANIFEST_FILE);
  const fail = (message: string) =>
    new WasmError(WasmErrorCode.WASM_CONFIG_INVALID, `manifest ${file}: ${message}`);
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    throw fail(`cannot be read: ${(error as NodeJS.ErrnoException).code ?? String(error)}`);
  }
  // The full manifest v1 rules (unknown fields, digest, no args for components, prompts), the
  // same ones `clat plugin install` applies: a development entry is no looser than a package.
  const parsed = parseManifest(file, text);
  if (!parsed.ok) throw fail(issueText(parsed.issues));
  const manifest = parsed.manifest;
  if (manifest.id !== entry.id) {
    throw fail(
      `its id ${JSON.stringify(manifest.id)} differs from the plugins.json key ${JSON.stringify(entry.id)}`,
    );
  }
  if (manifest.runtime.kind !== 'wasm-component') {
    throw fail(`runtime.kind is ${JSON.stringify(manifest.runtime.kind)}, not "wasm-component"`);
  }
  const root = dirname(file);
  const componentPath = resolve(root, manifest.runtime.entry);
  if (
    isAbsolute(manifest.runtime.entry) ||
    manifest.runtime.entry.split(/[\\/]/).includes('..') ||
    !componentPath.startsWith(root + sep)
  ) {
    throw fail(
      `runtime.entry ${JSON.stringify(manifest.runtime.entry)} must stay inside the package`,
    );
  }
  const sha256 = manifest.runtime.sha256;
  if (entry.sha256 !== undefined && entry.sha256 !== sha256) {
    throw fail(`the plugins.json pin ${entry.sha256} disagrees with runtime.sha256 ${sha256}`);
  }
  const caps = manifest.capabilities;
  const unknownTool = caps.hostTools.find(
    (tool) => !(NATIVE_HOST_TOOLS as readonly string[]).includes(tool),
  );
  if (unknownTool !== undefined) {
    throw fail(
      `capabilities.hostTools names ${JSON.stringify(unknownTool)}, which is not a host tool`,
    );
  }
  if (options.validateConfig === true) {
    const problem = missingConfigKeys(manifest.configSchema, entry.config);
    if (problem !== undefined) throw fail(problem);
  }
  return {
    componentPath,
    sha256,
    capabilities: {
      tools: caps.tools,
      hostContext: caps.hostContext,
      sampling: caps.sampling,
      elicitation: caps.elicitation,
      hostTools: caps.hostTools,
    },
    sensitive: sensitiveKeys(manifest),
  };
}

/**
 * `${...}` substitution in an installed server's args and env: `${CLAT_PLUGIN_DATA}` (its data
 * dir), `${CLAT_PLUGIN_ROOT}` (its artifact dir), `${config.KEY}` (activation config, then the
 * manifest's userConfig default) and `${env.NAME}` / `${env.NAME:-default}` (the environment CLAT
 * launches it from, as mcp.json's `${NAME}`; what `clat plugin install npm:… --env
 * 'TOKEN=${TOKEN}'` writes, so a key stays in the environment instead of the store). Unknown
 * variables stay literal; a missing config value is empty; an unset environment variable without
 * a default is an error.
 * @module
 */
import { environmentValue } from '@clat/adapter-mcp';
import { type JsonValue, type PluginManifest, sensitiveKeys } from '@clat/kernel';
import { PackagingError } from './errors.js';

export interface LaunchVars {
  data: string;
  root: string;
  config: JsonValue | undefined;
  manifest: PluginManifest;
  /** What `${env.NAME}` reads (CLAT's environment at launch); without it they stay literal. */
  env?: Readonly<Record<string, string | undefined>> | undefined;
}

const VARIABLE = /\$\{([A-Za-z_][A-Za-z0-9_.-]*)(?::-([^}]*))?\}/g;

/** `${env.NAME}` with a name as mcp.json's `${NAME}` takes it. */
const ENV_NAME = /^env\.([A-Za-z_][A-Za-z0-9_]*)$/;

function configValue(vars: LaunchVars, key: string): JsonValue | undefined {
  const config = vars.config;
  if (typeof config === 'object' && config !== null && !Array.isArray(config)) {
    if (Object.hasOwn(config, key)) return config[key];
  }
  return vars.manifest.userConfig?.[key]?.default;
}

function text(value: JsonValue | undefined): string {
  if (value === undefined || value === null) return '';
  if (typeof value === 'string') return value;
  if (Array.isArray(value)) return value.map((item) => text(item)).join(',');
  return typeof value === 'object' ? JSON.stringify(value) : String(value);
}

/** `${env.NAME}`'s value, as mcp.json reads `${NAME}` ({@link environmentValue}). */
function envValue(
  env: Readonly<Record<string, string | undefined>>,
  name: string,
  fallback: string | undefined,
): string {
  const found = environmentValue(env, name, fallback);
  if (found !== undefined) return found;
  throw new PackagingError(
    'CONFIG_INVALID',
    `the environment variable ${name} is not set and has no default; set it where CLAT starts`,
  );
}

/**
 * Substitutes one value; throws `CONFIG_INVALID` naming an environment variable that is unset
 * without a default.
 */
export function substituteLaunchValue(value: string, vars: LaunchVars): string {
  return value.replace(VARIABLE, (whole, name: string, fallback: string | undefined) => {
    const env = ENV_NAME.exec(name)?.[1];
    if (env !== undefined)
      return vars.env === undefined ? whole : envValue(vars.env, env, fallback);
    // Only environment references take a default: any other stays as written, as before.
    if (fallback !== undefined) return whole;
    if (name === 'CLAT_PLUGIN_DATA') return vars.data;
    if (name === 'CLAT_PLUGIN_ROOT') return vars.root;
    if (name.startsWith('config.')) return text(configValue(vars, name.slice('config.'.length)));
    return whole;
  });
}

/** Substitutes args; an argument that is exactly `${config.KEY}` with a list value becomes several. */
export function substituteLaunchArgs(args: readonly string[], vars: LaunchVars): string[] {
  const out: string[] = [];
  for (const arg of args) {
    const whole = /^\$\{config\.([A-Za-z_][A-Za-z0-9_-]*)\}$/.exec(arg);
    const value = whole === null ? undefined : configValue(vars, whole[1] as string);
    if (Array.isArray(value)) out.push(...value.map((item) => text(item)));
    else out.push(substituteLaunchValue(arg, vars));
  }
  return out;
}

/**
 * The sensitive settings (`userConfig` fields marked `sensitive`) a manifest passes in its
 * server's command-line arguments, where any user of the machine can read them (`ps`,
 * `/proc/<pid>/cmdline`); `runtime.env` and `CLAT_PLUGIN_CONFIG` are not. MCPB bundles often
 * do this, so it is said at install, not refused.
 */
export function sensitiveArgKeys(manifest: PluginManifest): string[] {
  const sensitive = new Set(sensitiveKeys(manifest));
  const found = new Set<string>();
  for (const arg of manifest.runtime.args ?? []) {
    for (const match of arg.matchAll(VARIABLE)) {
      const name = match[1] as string;
      if (name.startsWith('config.') && sensitive.has(name.slice('config.'.length))) {
        found.add(name.slice('config.'.length));
      }
    }
  }
  return [...found];
}

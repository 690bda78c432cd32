/**
 * The settings of a new activation: the config given (or the current one, its sensitive values
 * included), `--config` values and terminal answers over it, validated against the manifest,
 * then split into what the registry stores and what the secrets file holds. Install, update and
 * `configure` all go through it, so a setting is checked the same way whichever set it.
 * @module
 */
import type { JsonValue, PluginManifest } from '@clat/kernel';
import { userConfigProblem } from './config-schema.js';
import { applyConfigValues } from './config-values.js';
import { PackagingError } from './errors.js';
import { validateConfig } from './inspect.js';
import { splitSensitiveConfig } from './plugin-secrets.js';
import type { InstallOptions } from './store-types.js';

/** The stored (non-sensitive) config with the sensitive values from the secrets file. */
export function mergeConfig(
  stored: JsonValue | undefined,
  secrets: Record<string, JsonValue>,
): JsonValue | undefined {
  if (Object.keys(secrets).length === 0) return stored;
  const base =
    typeof stored === 'object' && stored !== null && !Array.isArray(stored) ? stored : {};
  return { ...base, ...secrets };
}

/**
 * The config of `manifest`'s next activation: `options.config` when given, else `current` (the
 * active config with its secrets merged), then `options.configValues` and `options.askConfig`.
 * Throws CONFIG_INVALID naming the package and the setting.
 */
export async function resolveActivationConfig(
  manifest: PluginManifest,
  current: JsonValue | undefined,
  options: Pick<InstallOptions, 'config' | 'configValues' | 'askConfig'>,
): Promise<{ stored: JsonValue | undefined; secrets: Record<string, JsonValue> }> {
  let config = options.config !== undefined ? options.config : current;
  if (options.configValues !== undefined || options.askConfig !== undefined) {
    config = await applyConfigValues(
      manifest,
      config,
      options.configValues ?? {},
      options.askConfig,
    );
  }
  validateConfig(manifest, config);
  const userProblem = userConfigProblem(manifest, config);
  if (userProblem !== undefined) {
    throw new PackagingError('CONFIG_INVALID', `config for ${manifest.id}: ${userProblem}`);
  }
  return splitSensitiveConfig(manifest, config);
}

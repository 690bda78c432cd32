/**
 * The settings of a new activation: the config given (or the current one, its sensitive values
 * included), `--config` values and terminal answers over it, validated against the manifest,
 * then split into what the registry stores and what the secrets file holds. Install, update and
 * `configure` all go through it, so a setting is checked the same way whichever set it.
 * @module
 */
import { type JsonValue, type PluginManifest, sensitiveKeys } from '@clat/kernel';
import { userConfigProblem } from './config-schema.js';
import { applyConfigValues, configFlags } from './config-values.js';
import { PackagingError } from './errors.js';
import { validateConfig } from './inspect.js';
import { isUnreadableSecrets, readSecrets, splitSensitiveConfig } from './plugin-secrets.js';
import type { Activation } from './registry.js';
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

/** The sensitive values a change starts from, and the error if their file could not be read. */
export interface SecretsBefore {
  values: Record<string, JsonValue>;
  unreadable?: PackagingError;
}

/**
 * The sensitive values of `activation`, for a change that replaces them. An unreadable secrets
 * file does not stop a change that gives them again (the one way to repair it): its values read
 * as none, and {@link assertSecretsGiven} refuses the change if it would have kept any of them.
 */
export async function secretsBefore(
  clatHome: string,
  id: string,
  activation: Pick<Activation, 'secrets'>,
  manifest: PluginManifest,
): Promise<SecretsBefore> {
  try {
    return { values: await readSecrets(clatHome, id, activation, manifest) };
  } catch (error) {
    if (!isUnreadableSecrets(error)) throw error;
    return { values: {}, unreadable: error };
  }
}

/**
 * Throws SECRETS_UNREADABLE, naming the keys, when the previous secrets file could not be read
 * and the new settings (`secrets`, of `manifest`) lack sensitive keys it may have held: the
 * change would otherwise drop them without a word. A full `config` given replaces them all.
 */
function assertSecretsGiven(
  before: SecretsBefore,
  manifest: PluginManifest,
  options: Pick<InstallOptions, 'config'>,
  secrets: Readonly<Record<string, unknown>>,
): void {
  if (before.unreadable === undefined || options.config !== undefined) return;
  const missing = sensitiveKeys(manifest).filter((key) => !Object.hasOwn(secrets, key));
  if (missing.length === 0) return;
  const reason = (before.unreadable.data as { reason?: string } | undefined)?.reason;
  throw new PackagingError(
    'SECRETS_UNREADABLE',
    `${reason ?? before.unreadable.message}, so ${manifest.id}'s sensitive settings ${missing.join(', ')} cannot be kept: add ${configFlags(missing)} to the command`,
    {
      ...(before.unreadable.file === undefined ? {} : { file: before.unreadable.file }),
      cause: before.unreadable,
    },
  );
}

/**
 * {@link resolveActivationConfig} from the current settings (`stored` and `before`), refusing
 * with SECRETS_UNREADABLE, not a bare "missing required setting", when an unreadable secrets
 * file left sensitive keys without a value.
 */
export async function resolveChangedConfig(
  manifest: PluginManifest,
  stored: JsonValue | undefined,
  before: SecretsBefore,
  options: Pick<InstallOptions, 'config' | 'configValues' | 'askConfig'>,
): Promise<{ stored: JsonValue | undefined; secrets: Record<string, JsonValue> }> {
  let resolved: Awaited<ReturnType<typeof resolveActivationConfig>>;
  try {
    resolved = await resolveActivationConfig(manifest, mergeConfig(stored, before.values), options);
  } catch (error) {
    assertSecretsGiven(before, manifest, options, options.configValues ?? {});
    throw error;
  }
  assertSecretsGiven(before, manifest, options, resolved.secrets);
  return resolved;
}

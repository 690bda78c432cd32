/**
 * `--config key=value` settings and terminal answers for a manifest's `userConfig`, coerced to
 * the declared types and merged over the current config.
 * @module
 */
import type { JsonValue, PluginManifest, PluginUserConfigField } from '@clat/kernel';
import { PackagingError } from './errors.js';

/** `--config key=<value>` for each key, as a person types them. */
export function configFlags(keys: readonly string[]): string {
  return keys.map((key) => `--config ${key}=<value>`).join(' ');
}

/** Asks the person for one setting on a terminal; undefined or '' leaves it unset. */
export type AskConfigValue = (
  key: string,
  field: PluginUserConfigField,
) => Promise<string | undefined>;

/** The value a setting was given, for an error: a sensitive one (a PIN, a key) is never shown. */
function given(field: PluginUserConfigField, raw: string): string {
  return field.sensitive === true
    ? ' (the value given is not shown: the setting is sensitive)'
    : `, not ${JSON.stringify(raw)}`;
}

function coerce(manifest: PluginManifest, key: string, raw: string): JsonValue {
  const fields = manifest.userConfig;
  // Own settings only: `constructor` would read Object's.
  const field = fields !== undefined && Object.hasOwn(fields, key) ? fields[key] : undefined;
  if (field === undefined) return raw;
  if (field.multiple === true) return raw.split(',').filter((part) => part !== '');
  if (field.type === 'number') {
    const value = Number(raw);
    if (raw.trim() === '' || !Number.isFinite(value)) {
      throw new PackagingError(
        'CONFIG_INVALID',
        `setting ${key} of ${manifest.id} must be a number${given(field, raw)}`,
      );
    }
    return value;
  }
  if (field.type === 'boolean') {
    if (/^(true|yes|1)$/i.test(raw)) return true;
    if (/^(false|no|0)$/i.test(raw)) return false;
    throw new PackagingError(
      'CONFIG_INVALID',
      `setting ${key} of ${manifest.id} must be true or false${given(field, raw)}`,
    );
  }
  return raw;
}

/**
 * Applies `values` over `config` and asks for required settings that are still missing. Keys
 * must be declared in `userConfig` when the manifest has one and no configSchema.
 */
export async function applyConfigValues(
  manifest: PluginManifest,
  config: JsonValue | undefined,
  values: Record<string, string>,
  ask?: AskConfigValue,
): Promise<JsonValue | undefined> {
  const fields = manifest.userConfig ?? {};
  const declared = Object.keys(fields);
  if (Object.keys(values).length > 0 && declared.length === 0 && !manifest.configSchema) {
    throw new PackagingError(
      'CONFIG_INVALID',
      `${manifest.id} declares no settings, so --config ${Object.keys(values)[0]}=… has nothing to set`,
    );
  }
  const out: Record<string, JsonValue> =
    typeof config === 'object' && config !== null && !Array.isArray(config) ? { ...config } : {};
  for (const [key, raw] of Object.entries(values)) {
    if (declared.length > 0 && !manifest.configSchema && !Object.hasOwn(fields, key)) {
      throw new PackagingError(
        'CONFIG_INVALID',
        `${manifest.id} has no setting ${JSON.stringify(key)} (it has ${declared.join(', ')})`,
      );
    }
    out[key] = coerce(manifest, key, raw);
  }
  if (ask !== undefined) {
    for (const [key, field] of Object.entries(fields)) {
      if (field.required !== true || field.default !== undefined || Object.hasOwn(out, key))
        continue;
      const answer = await ask(key, field);
      if (answer !== undefined && answer !== '') out[key] = coerce(manifest, key, answer);
    }
  }
  if (Object.keys(out).length === 0 && config === undefined) return undefined;
  return out;
}

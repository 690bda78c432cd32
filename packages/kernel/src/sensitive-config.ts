/**
 * Sensitive plugin settings: which configured values are secrets. A manifest marks a
 * `userConfig` key `sensitive`; a development entry may name keys itself. Those values, and
 * nothing else of a configuration, go to the host's redactor (the one owner of redaction).
 * @module
 */
import type { PluginManifest } from './manifest.js';

/** Keys of `manifest.userConfig` marked `sensitive`, in manifest order. */
export function sensitiveKeys(manifest: Pick<PluginManifest, 'userConfig'>): string[] {
  return Object.entries(manifest.userConfig ?? {})
    .filter(([, field]) => field.sensitive === true)
    .map(([key]) => key);
}

function scalarTexts(value: unknown, out: string[]): void {
  if (typeof value === 'string') out.push(value);
  else if (typeof value === 'number' || typeof value === 'bigint') out.push(String(value));
  else if (Array.isArray(value)) for (const item of value) scalarTexts(item, out);
  else if (typeof value === 'object' && value !== null) {
    for (const item of Object.values(value)) scalarTexts(item, out);
  }
}

/**
 * The texts a redactor must know for the `keys` of `config` (an object): a string or number
 * value, or every such value inside an array or object. Other keys contribute nothing, so a
 * model name next to an API key stays readable.
 */
export function sensitiveConfigValues(config: unknown, keys: readonly string[]): string[] {
  if (keys.length === 0 || typeof config !== 'object' || config === null || Array.isArray(config)) {
    return [];
  }
  const out: string[] = [];
  for (const key of keys) {
    if (Object.hasOwn(config, key)) scalarTexts((config as Record<string, unknown>)[key], out);
  }
  return out;
}

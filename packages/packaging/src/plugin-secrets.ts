/**
 * Sensitive plugin settings (manifest `userConfig` fields marked `sensitive`): kept out of
 * registry.json and mcp.json in `<CLAT_HOME>/plugin-secrets/<id>.json` (dir 0700, file 0600),
 * merged into the config only when a server is launched.
 * @module
 */
import { chmod, mkdir, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { type JsonValue, type PluginManifest, sensitiveKeys } from '@clat/kernel';
import { writeFileAtomic } from '@clat/node-files';
import { PackagingError } from './errors.js';
import { readBoundedFile } from './inspect.js';
import { PACKAGE_LIMITS } from './limits.js';

export const SECRETS_DIR = 'plugin-secrets';

function secretsFile(clatHome: string, id: string): string {
  return join(clatHome, SECRETS_DIR, `${id}.json`);
}

/** Splits a config into what the registry stores and the sensitive values. */
export function splitSensitiveConfig(
  manifest: PluginManifest,
  config: JsonValue | undefined,
): { stored: JsonValue | undefined; secrets: Record<string, JsonValue> } {
  const keys = sensitiveKeys(manifest);
  if (keys.length === 0 || typeof config !== 'object' || config === null || Array.isArray(config)) {
    return { stored: config, secrets: {} };
  }
  const stored: Record<string, JsonValue> = {};
  const secrets: Record<string, JsonValue> = {};
  for (const [key, value] of Object.entries(config)) {
    if (keys.includes(key)) secrets[key] = value;
    else stored[key] = value;
  }
  return { stored: Object.keys(stored).length === 0 ? undefined : stored, secrets };
}

/** The sensitive values stored for `id` (none: `{}`). A corrupt file is an error naming it. */
export async function readSecrets(
  clatHome: string,
  id: string,
): Promise<Record<string, JsonValue>> {
  const file = secretsFile(clatHome, id);
  let text: string;
  try {
    text = (await readBoundedFile(file, PACKAGE_LIMITS.configBytes, file)).toString('utf8');
  } catch (error) {
    if (/does not exist$/.test((error as Error).message)) return {};
    throw new PackagingError('CONFIG_INVALID', (error as Error).message, { file, cause: error });
  }
  try {
    const value = JSON.parse(text) as unknown;
    if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
      return value as Record<string, JsonValue>;
    }
  } catch {
    // fall through to the error below
  }
  throw new PackagingError('CONFIG_INVALID', `${file} is not a JSON object; reinstall ${id}`, {
    file,
  });
}

/** Replaces the sensitive values of `id` (0600, atomic); an empty set removes the file. */
export async function writeSecrets(
  clatHome: string,
  id: string,
  secrets: Record<string, JsonValue>,
): Promise<void> {
  const file = secretsFile(clatHome, id);
  if (Object.keys(secrets).length === 0) {
    await unlink(file).catch(() => undefined);
    return;
  }
  const dir = join(clatHome, SECRETS_DIR);
  await mkdir(dir, { recursive: true, mode: 0o700 });
  await chmod(dir, 0o700);
  // The temporary file holds the secrets: it never outlives a failed replacement.
  await writeFileAtomic(file, JSON.stringify(secrets), { mode: 0o600 });
}

/**
 * Sensitive plugin settings (manifest `userConfig` fields marked `sensitive`): kept out of
 * registry.json and mcp.json in `<CLAT_HOME>/plugin-secrets/<id>.<token>.json` (dir 0700, file
 * 0600), one file per activation (the registry's `secrets` token names it), merged into the config
 * only when a server is launched. A new activation's file is written before the registry that
 * points to it, and files no activation points to are removed after (and at every store lease),
 * so an interrupted update leaves the active version's settings as they were.
 * @module
 */
import { randomBytes } from 'node:crypto';
import { chmod, mkdir, readdir, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { type JsonValue, type PluginManifest, sensitiveKeys, shellWord } from '@clat/kernel';
import { readRefusal, writeFileAtomic } from '@clat/node-files';
import { configFlags } from './config-values.js';
import { isPackagingError, PackagingError } from './errors.js';
import { readBoundedFile } from './inspect.js';
import { PACKAGE_LIMITS } from './limits.js';
import type { Activation, Registry } from './registry.js';

export const SECRETS_DIR = 'plugin-secrets';

/** The file of an activation's secrets: its token's, or the one per id of older registries. */
function secretsFileName(id: string, activation: Pick<Activation, 'secrets'>): string {
  return activation.secrets === undefined ? `${id}.json` : `${id}.${activation.secrets}.json`;
}

/** Where an activation's sensitive settings are (the file may not exist: then it has none). */
export function secretsFile(
  clatHome: string,
  id: string,
  activation: Pick<Activation, 'secrets'>,
): string {
  return join(clatHome, SECRETS_DIR, secretsFileName(id, activation));
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

/** A secrets file that exists but could not be read (see {@link readSecretsFile}). */
export function isUnreadableSecrets(error: unknown): error is PackagingError {
  return isPackagingError(error) && error.code === 'SECRETS_UNREADABLE';
}

/**
 * The sensitive values of `id`'s `activation` (none: `{}`). A file that cannot be read throws
 * SECRETS_UNREADABLE (see {@link readSecretsFile}).
 */
export async function readSecrets(
  clatHome: string,
  id: string,
  activation: Pick<Activation, 'secrets'>,
  manifest: Pick<PluginManifest, 'userConfig'>,
): Promise<Record<string, JsonValue>> {
  return (await readSecretsFile(clatHome, id, activation, manifest)) ?? {};
}

/**
 * As {@link readSecrets}, but undefined when the file does not exist: an activation without
 * sensitive values has none, and so has one whose file a concurrent `configure` or `update`
 * swept after pointing the registry elsewhere (the caller that read the registry without the
 * lease tells them apart by reading it again). A file that exists but cannot be read (empty, cut
 * short, permission denied) throws SECRETS_UNREADABLE naming it and `manifest`'s sensitive keys:
 * its values are gone, and `clat plugin configure` given them again replaces the file.
 */
export async function readSecretsFile(
  clatHome: string,
  id: string,
  activation: Pick<Activation, 'secrets'>,
  manifest: Pick<PluginManifest, 'userConfig'>,
): Promise<Record<string, JsonValue> | undefined> {
  const file = secretsFile(clatHome, id, activation);
  const unreadable = (what: string, cause?: unknown) => {
    const keys = sensitiveKeys(manifest);
    // Without sensitive settings the file holds nothing this version reads: removing it loses
    // nothing (a missing file is "no sensitive values").
    const way =
      keys.length === 0
        ? `${id} has no sensitive settings, so remove it`
        : `set ${id}'s sensitive settings (${keys.join(', ')}) again with "clat plugin configure ${shellWord(id)} ${configFlags(keys)}"`;
    return new PackagingError('SECRETS_UNREADABLE', `${what}; ${way}`, {
      file,
      data: { reason: what },
      ...(cause === undefined ? {} : { cause }),
    });
  };
  let text: string;
  try {
    text = (await readBoundedFile(file, PACKAGE_LIMITS.configBytes, file)).toString('utf8');
  } catch (error) {
    if (/does not exist$/.test((error as Error).message)) return undefined;
    throw unreadable(readRefusal(file, error) ?? (error as Error).message, error);
  }
  try {
    const value = JSON.parse(text) as unknown;
    if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
      return value as Record<string, JsonValue>;
    }
  } catch {
    // fall through to the error below
  }
  throw unreadable(
    `${file} is not a JSON object (${text.trim() === '' ? 'it is empty' : 'it was cut short or changed'})`,
  );
}

/**
 * Writes the sensitive values of a new activation of `id` (0600, atomic) under a new token, and
 * returns the token for the activation to carry; an empty set writes nothing. No file an existing
 * activation reads is touched: only the registry's rename makes the new one active.
 */
export async function writeSecrets(
  clatHome: string,
  id: string,
  secrets: Record<string, JsonValue>,
): Promise<string> {
  const token = randomBytes(8).toString('hex');
  if (Object.keys(secrets).length === 0) return token;
  const dir = join(clatHome, SECRETS_DIR);
  await mkdir(dir, { recursive: true, mode: 0o700 });
  await chmod(dir, 0o700);
  // The temporary file holds the secrets: it never outlives a failed replacement, and one a
  // killed process left is removed by the next sweep.
  await writeFileAtomic(secretsFile(clatHome, id, { secrets: token }), JSON.stringify(secrets), {
    mode: 0o600,
  });
  return token;
}

/**
 * Removes every file of the secrets directory no activation of `registry` reads: those of
 * replaced or uninstalled versions, of an update interrupted before its registry was written,
 * and temporary files a killed write left (they hold secrets too). Run under the store lease,
 * after each registry write and at each lease, so nothing of a removed plugin's keys stays.
 */
export async function sweepSecrets(clatHome: string, registry: Registry): Promise<void> {
  const dir = join(clatHome, SECRETS_DIR);
  let entries: string[];
  try {
    entries = await readdir(dir);
  } catch {
    return;
  }
  const read = new Set<string>();
  for (const [id, record] of Object.entries(registry.packages)) {
    read.add(secretsFileName(id, record.active));
    if (record.rollback !== undefined) read.add(secretsFileName(id, record.rollback));
  }
  for (const entry of entries) {
    if (!read.has(entry)) await unlink(join(dir, entry)).catch(() => undefined);
  }
}

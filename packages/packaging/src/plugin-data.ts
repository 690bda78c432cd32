/**
 * A package's private data directory, `<clatHome>/plugin-data/<id>` (0700): its server's
 * `$CLAT_PLUGIN_DATA`, and where `repair` keeps the files a server wrote into its package
 * directory instead (often its data: server-memory's `memory.jsonl`), so a repair loses nothing.
 * @module
 */
import { chmod, constants, copyFile, lstat, mkdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { PLUGIN_ID_PATTERN } from '@clat/kernel';
import { removeTree } from './store-fs.js';

export function pluginDataDir(clatHome: string, id: string): string {
  return join(clatHome, 'plugin-data', id);
}

/**
 * Removes a package's data directory and everything in it (also read-only copies `repair` kept);
 * false when there was none. Uninstall keeps it, so a reinstall finds its data; `--purge` asks.
 */
export async function removePluginData(clatHome: string, id: string): Promise<boolean> {
  // The id may be typed by a person (`uninstall --purge` of a package no longer installed): only
  // a well-formed package id names a directory under plugin-data, never `..` or a path.
  if (!PLUGIN_ID_PATTERN.test(id)) return false;
  const data = pluginDataDir(clatHome, id);
  if ((await lstat(data).catch(() => undefined)) === undefined) return false;
  await removeTree(data);
  return true;
}

/**
 * Creates the data directory owner-only, whatever the umask. One that is already an owner-only
 * directory is left alone, so a CLAT home on a read-only file system still launches.
 */
export async function ensurePluginDataDir(clatHome: string, id: string): Promise<string> {
  const data = pluginDataDir(clatHome, id);
  const found = await lstat(data).catch(() => undefined);
  if (found?.isDirectory() && (found.mode & 0o777) === 0o700) return data;
  await mkdir(data, { recursive: true, mode: 0o700 });
  await chmod(data, 0o700);
  return data;
}

/**
 * Copies `files` (package-relative paths under `dir`) into a new `repaired-<time>-<label>`
 * directory of the data directory, keeping their relative paths; returns that directory.
 */
export async function keepAddedFiles(
  clatHome: string,
  id: string,
  dir: string,
  files: readonly string[],
  label: string,
): Promise<string> {
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  const kept = join(await ensurePluginDataDir(clatHome, id), `repaired-${stamp}-${label}`);
  for (const file of files) {
    const target = join(kept, ...file.split('/'));
    await mkdir(dirname(target), { recursive: true, mode: 0o700 });
    await copyFile(join(dir, ...file.split('/')), target, constants.COPYFILE_EXCL);
  }
  return kept;
}

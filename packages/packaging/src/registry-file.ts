/**
 * Reading and atomically replacing the plugin store's `registry.json` (temp + fsync + rename +
 * directory fsync).
 * @module
 */
import { lstat } from 'node:fs/promises';
import { dirname } from 'node:path';
import { fsyncDirectory, writeFileAtomic } from '@clat/node-files';
import { PackagingError } from './errors.js';
import { readBoundedFile } from './inspect.js';
import { PACKAGE_LIMITS } from './limits.js';
import { emptyRegistry, parseRegistry, type Registry } from './registry.js';

/** Reads the registry; a missing file is an empty registry, anything malformed throws. */
export async function readRegistryFile(file: string): Promise<Registry> {
  const stat = await lstat(file).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return undefined;
    throw error;
  });
  if (stat === undefined) return emptyRegistry();
  if (stat.isSymbolicLink() || !stat.isFile()) {
    throw new PackagingError(
      'REGISTRY_INVALID',
      `${file} is not a regular file; plugins are disabled until it is fixed or removed`,
      { file: file },
    );
  }
  let buffer: Buffer;
  try {
    buffer = await readBoundedFile(file, PACKAGE_LIMITS.registryBytes);
  } catch (error) {
    throw new PackagingError(
      'REGISTRY_INVALID',
      `${(error as Error).message}; plugins are disabled until it is fixed or removed`,
      { file: file, cause: error },
    );
  }
  return parseRegistry(file, buffer.toString('utf8'));
}

/** Replaces `file` atomically; the caller holds the store lease. */
export async function writeRegistryFile(file: string, registry: Registry): Promise<void> {
  const root = dirname(file);
  const text = `${JSON.stringify(registry, null, 2)}\n`;
  if (Buffer.byteLength(text) > PACKAGE_LIMITS.registryBytes) {
    throw new PackagingError('REGISTRY_INVALID', `${file} would exceed 4 MiB`);
  }
  // 0600, synced; its temporary sibling (`.registry.json.*.tmp`) is what recovery sweeps after a crash.
  await writeFileAtomic(file, text, { mode: 0o600 });
  await fsyncDirectory(root);
}

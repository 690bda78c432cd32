/**
 * Reading and atomically replacing the plugin store's `registry.json` (temp + fsync + rename +
 * directory fsync).
 * @module
 */
import { lstat } from 'node:fs/promises';
import { dirname } from 'node:path';
import { fsyncDirectory, readRefusal, writeFileAtomic } from '@clat/node-files';
import { PackagingError } from './errors.js';
import { readBoundedFile } from './inspect.js';
import { PACKAGE_LIMITS } from './limits.js';
import { parseRegistry, REGISTRY_ADVICE, type Registry } from './registry.js';

/**
 * Reads the registry: undefined when the file does not exist (the store decides what that means,
 * see store-unlisted.ts), anything unreadable or malformed throws REGISTRY_INVALID.
 */
export async function readRegistryFile(file: string): Promise<Registry | undefined> {
  const unreadable = (error: unknown): PackagingError => {
    const denied = readRefusal(file, error);
    return new PackagingError(
      'REGISTRY_INVALID',
      `${denied ?? (error as Error).message}; ${REGISTRY_ADVICE}`,
      { file, cause: error },
    );
  };
  let stat: Awaited<ReturnType<typeof lstat>> | undefined;
  try {
    stat = await lstat(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw unreadable(error);
  }
  if (stat.isSymbolicLink() || !stat.isFile()) {
    throw new PackagingError(
      'REGISTRY_INVALID',
      `${file} is not a regular file; ${REGISTRY_ADVICE}`,
      {
        file,
      },
    );
  }
  let buffer: Buffer;
  try {
    buffer = await readBoundedFile(file, PACKAGE_LIMITS.registryBytes);
  } catch (error) {
    throw unreadable(error);
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

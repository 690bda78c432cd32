/**
 * Crash recovery of the plugin store, run under the lease before every mutation.
 * @module
 */
import { readdir, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { isAbandonedTempFileOf, isTempFileOf } from '@clat/node-files';
import { REGISTRY_FILE, type Registry } from './registry.js';
import { removeTree } from './store-fs.js';
import { LOCK_FILE } from './store-lock.js';

/** Wipes staging and registry temp files and prunes artifacts the registry does not reference. */
export async function recoverStore(root: string, registry: Registry): Promise<void> {
  const staging = join(root, 'staging');
  for (const name of await readdir(staging)) await removeTree(join(staging, name));
  for (const name of await readdir(root)) {
    // Another process writes its lock's temp file outside the lease, and links it into place:
    // only a dead writer's is a leftover (removing a live one's failed its link with ENOENT).
    // `lock.*.tmp`: the lock's temp files as CLAT named them before @clat/node-files (hidden now);
    // `lock.*.stale`: a stale lock moved aside by StoreLock.
    const lockLeftover =
      isAbandonedTempFileOf(name, LOCK_FILE) ||
      (name.startsWith(`${LOCK_FILE}.`) && (name.endsWith('.tmp') || name.endsWith('.stale')));
    if (isTempFileOf(name, REGISTRY_FILE) || lockLeftover) {
      await unlink(join(root, name)).catch(() => undefined);
    }
  }
  const artifacts = join(root, 'artifacts');
  for (const id of await readdir(artifacts)) {
    const record = registry.packages[id];
    if (record === undefined) {
      await removeTree(join(artifacts, id));
      continue;
    }
    const keep = new Set([record.active.artifact, record.rollback?.artifact]);
    for (const sha of await readdir(join(artifacts, id)).catch(() => [])) {
      if (!keep.has(sha)) await removeTree(join(artifacts, id, sha));
    }
  }
  const containers = join(root, 'containers');
  for (const id of await readdir(containers).catch(() => [])) {
    const record = registry.packages[id];
    const keep = new Set(
      [record?.active.artifact, record?.rollback?.artifact].map((sha) => `${sha}.clatpkg`),
    );
    for (const name of await readdir(join(containers, id)).catch(() => [])) {
      if (record === undefined || !keep.has(name)) {
        await unlink(join(containers, id, name)).catch(() => undefined);
      }
    }
    if (record === undefined) await removeTree(join(containers, id));
  }
}

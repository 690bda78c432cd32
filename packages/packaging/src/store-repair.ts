/**
 * Repair of an installed package: its active (and rollback) bytes restored from the stored
 * containers.
 * @module
 */
import { randomUUID } from 'node:crypto';
import { lstat } from 'node:fs/promises';
import { join } from 'node:path';
import { unpackContainer } from './clatpkg.js';
import { isPackagingError, PackagingError } from './errors.js';
import { inspectPackage } from './inspect.js';
import {
  type ArtifactRecord,
  activeArtifact,
  type PackageRecord,
  type Registry,
} from './registry.js';
import type { StoreContext } from './store-context.js';
import { publishArtifact } from './store-publish.js';
import { recoverStore } from './store-recovery.js';
import type { RepairResult } from './store-types.js';
import { reinstallHint } from './verify-artifact.js';

/**
 * Restores the active (and rollback) bytes of `id`, installed as `record`, from the stored
 * containers: changed or removed files come back, and files a server added move to its data
 * directory. Nothing else changes. Runs under the lease, against `registry` as read there.
 */
export async function repairPackage(
  store: StoreContext,
  registry: Registry,
  id: string,
  record: PackageRecord,
): Promise<RepairResult> {
  const repaired: string[] = [];
  const slots = record.rollback === undefined ? ['active'] : ['active', 'rollback'];
  for (const slot of slots as ('active' | 'rollback')[]) {
    const activation = slot === 'active' ? record.active : record.rollback;
    if (activation === undefined) continue;
    // What was wrong and what was done, in the order it happened.
    const done: string[] = [];
    try {
      const verified = await store.verifyActivation(id, record, slot);
      if (verified.added.length === 0) continue;
    } catch (error) {
      // What was wrong, without the advice to run this very repair.
      const reason = isPackagingError(error) ? error.data?.reason : undefined;
      done.push(typeof reason === 'string' ? reason : (error as Error).message);
    }
    const version = record.artifacts[activation.artifact]?.manifest.version ?? '?';
    const container = store.containerPath(id, activation.artifact);
    if (!(await lstat(container).catch(() => undefined))) {
      throw new PackagingError(
        'PACKAGE_STATE',
        `no stored copy of ${id} ${version} to repair from (${container} is missing); ${reinstallHint(id, record.artifacts[activation.artifact] as ArtifactRecord)}`,
        { file: container },
      );
    }
    const unpacked = join(store.root, 'staging', `${randomUUID()}-unpacked`);
    await unpackContainer(container, unpacked);
    const inspected = await inspectPackage(unpacked);
    if (inspected.tree.treeSha256 !== activation.artifact) {
      throw new PackagingError(
        'CONTAINER_INVALID',
        `stored copy ${container} does not hold tree ${activation.artifact}; reinstall ${id} with "clat plugin install <its package>"`,
        { file: container },
      );
    }
    // Files the server added are often its data (written beside itself, not to
    // $CLAT_PLUGIN_DATA): they move to its data directory instead of being lost.
    const { added, kept } = await publishArtifact(
      store,
      id,
      activation.artifact,
      inspected,
      true,
      slot,
    );
    if (kept !== undefined) {
      const list = `${added.slice(0, 3).join(', ')}${added.length > 3 ? ', …' : ''}`;
      done.push(`moved ${added.length} added file(s) (${list}) to ${kept}`);
    }
    repaired.push(`${slot}: ${done.join('; ')}`);
  }
  await recoverStore(store.root, registry);
  const version = activeArtifact(record).manifest.version;
  return { id, version, repaired };
}

/**
 * What the plugin store's helpers (store-activate.ts, store-publish.ts, store-repair.ts) use of
 * the store: its paths, its reads and its lease-checked registry write.
 * @module
 */
import type { PackageRecord, Registry } from './registry.js';
import type { VerifiedArtifact } from './store-types.js';
import type { ArtifactPaths } from './verify-artifact.js';

export interface StoreContext extends ArtifactPaths {
  /** `<CLAT_HOME>`: where plugin data and secrets live. */
  readonly clatHome: string;
  /** `<CLAT_HOME>/plugin-store`. */
  readonly root: string;
  readonly registryFile: string;
  readRegistry(): Promise<Registry>;
  verifyActivation(
    id: string,
    record: PackageRecord,
    slot?: 'active' | 'rollback',
  ): Promise<VerifiedArtifact>;
  /** Replaces `registry.json`; throws unless this process holds the storage-root lease. */
  writeRegistry(registry: Registry): Promise<void>;
}

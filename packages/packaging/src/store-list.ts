/**
 * The plugin store's listing: every installed package with its version, trust, source and a
 * health column from verifying its installed bytes (a bad artifact marks only its own row).
 * @module
 */
import { listedSource } from './listed-source.js';
import { readSecretsFile } from './plugin-secrets.js';
import type { PluginStore } from './plugin-store.js';
import { type ArtifactRecord, activeArtifact } from './registry.js';
import type { PluginListEntry } from './store-types.js';

export function trustLabel(trust: ArtifactRecord['trust']): PluginListEntry['trust'] {
  return trust === 'publisher-verified' ? 'publisher/verified' : 'local/unverified';
}

/** The rows of `clat plugin list`, sorted by id. */
export async function listPackages(store: PluginStore): Promise<PluginListEntry[]> {
  const registry = await store.readRegistry();
  const rows: PluginListEntry[] = [];
  for (const [id, record] of Object.entries(registry.packages).sort(([a], [b]) =>
    a < b ? -1 : 1,
  )) {
    const artifact = activeArtifact(record);
    let health = 'ok';
    try {
      const { added } = await store.verifyActivation(id, record);
      if (added.length > 0) {
        health = `ok, but ${added.length} file(s) were added to its directory (${added.slice(0, 3).join(', ')}); "clat plugin repair ${id}" moves them to its data directory`;
      }
      // Its settings are part of what it needs to start: an unreadable secrets file stops it.
      await readSecretsFile(store.clatHome, id, record.active, artifact.manifest);
    } catch (error) {
      health = (error as Error).message;
    }
    const row: PluginListEntry = {
      id,
      name: artifact.manifest.name,
      version: artifact.manifest.version,
      runtime: artifact.manifest.runtime.kind,
      treeSha256: artifact.treeSha256,
      enabled: record.enabled,
      ...(record.roots === false ? { roots: false as const } : {}),
      trust: trustLabel(artifact.trust),
      health,
    };
    const rollbackVersion =
      record.rollback === undefined
        ? undefined
        : record.artifacts[record.rollback.artifact]?.manifest.version;
    if (rollbackVersion !== undefined) row.rollbackVersion = rollbackVersion;
    if (artifact.publisher !== undefined) row.publisher = artifact.publisher;
    if (artifact.source !== undefined) row.source = listedSource(artifact.source);
    rows.push(row);
  }
  return rows;
}

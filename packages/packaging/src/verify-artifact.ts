/**
 * Verifying installed bytes: every shipped file, the tree digest, the manifest and the publisher
 * identity must still match the registry record.
 * @module
 */
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { readContainerHeader } from './clatpkg.js';
import { PackagingError } from './errors.js';
import { type InspectedPackage, inspectPackage } from './inspect.js';
import type { ArtifactRecord, PackageRecord } from './registry.js';
import type { VerifiedArtifact } from './store-types.js';
import { type PackageTree, readPackageTree, treeDigest } from './tree.js';

/** Where the store keeps an artifact's tree and its stored container. */
export interface ArtifactPaths {
  artifactDir(id: string, treeSha256: string): string;
  containerPath(id: string, treeSha256: string): string;
}

/** Tells the person how to fix a damaged artifact (a command that works: see `repair`). */
function repairHint(id: string): string {
  return `run "clat plugin repair ${id}"`;
}

function toTreeEntry(file: { path: string; bytes: number; sha256: string }) {
  return { path: file.path, size: file.bytes, sha256: file.sha256 };
}

/**
 * Re-inspects the installed bytes of one activation: every shipped file (the stored container's
 * list), the tree digest, the manifest and the entry digest must still match the registry.
 * Files a server added to its directory are returned in `added`, not fatal. Throws
 * ARTIFACT_TAMPERED naming the package and the repair command.
 */
export async function verifyInstalledArtifact(
  store: ArtifactPaths,
  id: string,
  record: PackageRecord,
  slot: 'active' | 'rollback' = 'active',
): Promise<VerifiedArtifact> {
  const activation = slot === 'active' ? record.active : record.rollback;
  if (activation === undefined) {
    throw new PackagingError('PACKAGE_STATE', `${id} has no rollback activation`);
  }
  const artifact = record.artifacts[activation.artifact] as ArtifactRecord;
  const dir = store.artifactDir(id, activation.artifact);
  const tampered = (message: string, file = dir, cause?: unknown) =>
    new PackagingError('ARTIFACT_TAMPERED', `${message}; ${repairHint(id)}`, {
      file,
      ...(cause === undefined ? {} : { cause }),
    });
  let tree: PackageTree;
  try {
    tree = await readPackageTree(dir);
  } catch (error) {
    throw tampered(`installed package ${id} is damaged: ${(error as Error).message}`, dir, error);
  }
  const shipped = await readContainerHeader(store.containerPath(id, activation.artifact)).catch(
    () => undefined,
  );
  let added: string[] = [];
  if (shipped !== undefined && treeDigest(shipped.map(toTreeEntry)) === activation.artifact) {
    const found = new Map(tree.files.map((file) => [file.path, file]));
    for (const file of shipped) {
      const now = found.get(file.path);
      if (now === undefined || now.sha256 !== file.sha256) {
        throw tampered(
          `${file.path} of installed package ${id} was ${now === undefined ? 'removed' : 'changed'}`,
          join(dir, file.path),
        );
      }
    }
    const paths = new Set(shipped.map((file) => file.path));
    added = tree.files.filter((file) => !paths.has(file.path)).map((file) => file.path);
    const files = tree.files.filter((file) => paths.has(file.path));
    tree = {
      root: dir,
      files,
      totalBytes: files.reduce((sum, file) => sum + file.size, 0),
      treeSha256: activation.artifact,
    };
  }
  let inspected: InspectedPackage;
  try {
    inspected = await inspectPackage(dir, { tree });
  } catch (error) {
    throw tampered(`installed package ${id} is damaged: ${(error as Error).message}`, dir, error);
  }
  if (inspected.tree.treeSha256 !== activation.artifact) {
    throw tampered(
      `installed bytes of ${id} changed (expected tree ${activation.artifact}, found ${inspected.tree.treeSha256})`,
    );
  }
  if (!isDeepStrictEqual(inspected.manifest, artifact.manifest)) {
    throw tampered(
      `installed manifest of ${id} differs from the registry record`,
      join(dir, 'clat-plugin.json'),
    );
  }
  // Trust is re-derived from the installed bytes: a signature that no longer verifies, or one
  // that appeared, is tampering too.
  if (
    inspected.trust !== artifact.trust ||
    !isDeepStrictEqual(inspected.publisher, artifact.publisher)
  ) {
    throw tampered(`installed publisher identity of ${id} differs from the registry record`);
  }
  return { id, dir, record: artifact, activation, inspected, added };
}

/**
 * Verifying installed bytes: every shipped file, the tree digest, the manifest and the publisher
 * identity must still match the registry record.
 * @module
 */
import { lstat } from 'node:fs/promises';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { shellWord } from '@clat/kernel';
import { readContainerHeader } from './clatpkg.js';
import { PackagingError } from './errors.js';
import { type InspectedPackage, inspectPackage } from './inspect.js';
import { NPM_SPEC_PREFIX } from './npm-source.js';
import type { ArtifactRecord, PackageRecord } from './registry.js';
import type { VerifiedArtifact } from './store-types.js';
import { type PackageTree, readPackageTree, treeDigest } from './tree.js';

/** Where the store keeps an artifact's tree and its stored container. */
export interface ArtifactPaths {
  artifactDir(id: string, treeSha256: string): string;
  containerPath(id: string, treeSha256: string): string;
}

/**
 * How to get back the same version of `id` when no stored copy can restore it: installing its
 * package again (the same bytes are a reinstall, which restores them and stores a copy again).
 */
export function reinstallHint(id: string, artifact: ArtifactRecord): string {
  const { source, manifest } = artifact;
  if (source === undefined) {
    return `reinstall the same version (${id} ${manifest.version}) with "clat plugin install <its package>"`;
  }
  // The same id, bin and scripts choice: they are part of the package's bytes, so a reinstall
  // without them would be other bytes (refused as installed) or a second package.
  const words = [
    'clat plugin install',
    shellWord(`${NPM_SPEC_PREFIX}${source.name}@${source.version}`),
    '--yes',
    '--id',
    shellWord(id),
    '--bin',
    shellWord(source.bin),
    ...(source.allowScripts === true ? ['--allow-scripts'] : []),
  ];
  // Values are never shown (a key is often one): the names say what to give again.
  const env = Object.keys(source.env ?? {});
  const given = [
    ...(env.length === 0 ? [] : [`--env ${env.map((name) => `${name}=…`).join(' --env ')}`]),
    ...((source.args ?? []).length === 0 ? [] : ['its server arguments after --']),
  ];
  const also = given.length === 0 ? '' : `, giving again ${given.join(' and ')} as first given`;
  return `reinstall the same version (${id} ${manifest.version}) with "${words.join(' ')}"${also}`;
}

/**
 * Tells the person how to fix a damaged artifact with a command that works: `repair` restores
 * from the stored container, so without one it is reinstalling the same version.
 */
async function repairHint(id: string, artifact: ArtifactRecord, container: string) {
  const stored = await lstat(container).catch(() => undefined);
  return stored?.isFile() === true
    ? `run "clat plugin repair ${shellWord(id)}"`
    : `its stored copy ${container} is missing too, so ${reinstallHint(id, artifact)}`;
}

function toTreeEntry(file: { path: string; bytes: number; sha256: string }) {
  return { path: file.path, size: file.bytes, sha256: file.sha256 };
}

/**
 * Re-inspects the installed bytes of one activation: every shipped file (the stored container's
 * list), the tree digest, the manifest and the entry digest must still match the registry.
 * Files a server added to its directory are returned in `added`, not fatal. Throws
 * ARTIFACT_TAMPERED naming the package and the repair command (`data.reason`: what is wrong alone).
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
  const container = store.containerPath(id, activation.artifact);
  const tampered = async (message: string, file = dir, cause?: unknown) =>
    new PackagingError(
      'ARTIFACT_TAMPERED',
      `${message}; ${await repairHint(id, artifact, container)}`,
      // What is wrong without the way out: `repair` reports it beside what it then did.
      { file, data: { reason: message }, ...(cause === undefined ? {} : { cause }) },
    );
  let tree: PackageTree;
  try {
    tree = await readPackageTree(dir);
  } catch (error) {
    throw await tampered(
      `installed package ${id} is damaged: ${(error as Error).message}`,
      dir,
      error,
    );
  }
  const shipped = await readContainerHeader(container).catch(() => undefined);
  let added: string[] = [];
  if (shipped !== undefined && treeDigest(shipped.map(toTreeEntry)) === activation.artifact) {
    const found = new Map(tree.files.map((file) => [file.path, file]));
    for (const file of shipped) {
      const now = found.get(file.path);
      if (now === undefined || now.sha256 !== file.sha256) {
        throw await tampered(
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
    throw await tampered(
      `installed package ${id} is damaged: ${(error as Error).message}`,
      dir,
      error,
    );
  }
  if (inspected.tree.treeSha256 !== activation.artifact) {
    throw await tampered(
      `installed bytes of ${id} changed (expected tree ${activation.artifact}, found ${inspected.tree.treeSha256})`,
    );
  }
  if (!isDeepStrictEqual(inspected.manifest, artifact.manifest)) {
    throw await tampered(
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
    throw await tampered(`installed publisher identity of ${id} differs from the registry record`);
  }
  return { id, dir, record: artifact, activation, inspected, added };
}

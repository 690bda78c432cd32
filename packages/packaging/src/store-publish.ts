/**
 * Publishing a verified tree into the plugin store: staged, re-inspected, swapped in for its
 * artifact dir (the files a server added to a replaced dir kept first), and its `.clatpkg` stored
 * for repair.
 * @module
 */
import { randomUUID } from 'node:crypto';
import { lstat, mkdir, rename } from 'node:fs/promises';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { fsyncDirectory } from '@clat/node-files';
import { packPackage } from './clatpkg.js';
import { PackagingError } from './errors.js';
import { type InspectedPackage, inspectPackage } from './inspect.js';
import { keepAddedFiles } from './plugin-data.js';
import { emptyRegistry } from './registry.js';
import type { StoreContext } from './store-context.js';
import { copyTree, removeTree } from './store-fs.js';
import { readPackageTree } from './tree.js';

/**
 * Copies a verified tree into staging and swaps it in for the artifact dir of `treeSha`. When
 * that dir is replaced, the files a server added to it (often its data, such as server-memory's
 * `memory.jsonl`) are first copied to its data directory under `label`; returns whether it was
 * replaced, and where those files went, with their paths.
 */
export async function publishArtifact(
  store: StoreContext,
  id: string,
  treeSha: string,
  inspected: InspectedPackage,
  replace: boolean,
  label: string,
): Promise<{ replaced: boolean; added: string[]; kept?: string }> {
  const staging = join(store.root, 'staging', randomUUID());
  let restaged: InspectedPackage;
  try {
    await copyTree(inspected, staging);
    restaged = await inspectPackage(staging);
  } catch (error) {
    // A full disk or a refused write: no partial copy is left for the next lease to sweep.
    await removeTree(staging);
    throw error;
  }
  if (
    restaged.tree.treeSha256 !== treeSha ||
    !isDeepStrictEqual(restaged.manifest, inspected.manifest) ||
    !isDeepStrictEqual(restaged.publisher, inspected.publisher)
  ) {
    await removeTree(staging);
    throw new PackagingError(
      'IDENTITY_MISMATCH',
      `${inspected.dir} changed while it was being installed (tree ${treeSha} became ${restaged.tree.treeSha256})`,
      { file: inspected.dir },
    );
  }
  // The first artifact of a store lands after its (empty) registry: a missing registry then
  // always means a lost one, never a first install killed before it wrote one.
  if (!(await lstat(store.registryFile).catch(() => undefined))) {
    await store.writeRegistry(emptyRegistry());
  }
  const idDir = join(store.root, 'artifacts', id);
  await mkdir(idDir, { recursive: true, mode: 0o700 });
  const target = store.artifactDir(id, treeSha);
  const result: { replaced: boolean; added: string[]; kept?: string } = {
    replaced: false,
    added: [],
  };
  if (await lstat(target).catch(() => undefined)) {
    // Same bytes already published (a reinstall, or updating back to the rollback version).
    // Keep a copy whose shipped files are intact, so a referenced artifact never disappears
    // and a running server keeps what it wrote beside itself; move a damaged one aside.
    const current = await readPackageTree(target).catch(() => undefined);
    const found = new Map(current?.files.map((file) => [file.path, file]));
    const intact =
      !replace &&
      current !== undefined &&
      inspected.tree.files.every((file) => {
        const now = found.get(file.path);
        return now?.sha256 === file.sha256 && now.executable === file.executable;
      });
    if (intact) await removeTree(staging);
    else {
      const shipped = new Set(inspected.tree.files.map((file) => file.path));
      result.added = [...found.keys()].filter((path) => !shipped.has(path));
      if (result.added.length > 0)
        result.kept = await keepAddedFiles(store.clatHome, id, target, result.added, label);
      await rename(target, join(store.root, 'staging', `${randomUUID()}-damaged`));
      await rename(staging, target);
      result.replaced = true;
    }
  } else {
    await rename(staging, target);
  }
  await fsyncDirectory(idDir);
  await fsyncDirectory(join(store.root, 'artifacts'));
  return result;
}

/** Stores the `.clatpkg` of a freshly published artifact (kept while the artifact is). */
export async function storeContainer(
  store: StoreContext,
  id: string,
  treeSha: string,
): Promise<void> {
  const file = store.containerPath(id, treeSha);
  if (await lstat(file).catch(() => undefined)) return;
  await mkdir(join(store.root, 'containers', id), { recursive: true, mode: 0o700 });
  await packPackage(store.artifactDir(id, treeSha), file);
}

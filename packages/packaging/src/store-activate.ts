/**
 * Install and update: the questions asked before the lease, then, under it, staging the source,
 * the checks that refuse a change, publishing the artifact and writing the registry that
 * activates it.
 * @module
 */
import { randomUUID } from 'node:crypto';
import { lstat, mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { resolveChangedConfig, type SecretsBefore, secretsBefore } from './activation-config.js';
import { type AskFirstContext, answerFirst } from './ask-first.js';
import { confirmCapabilities } from './capability-consent.js';
import { unpackContainer } from './clatpkg.js';
import { PackagingError } from './errors.js';
import { capabilityExpansion, inspectPackage } from './inspect.js';
import { sweepSecrets, writeSecrets } from './plugin-secrets.js';
import { type Activation, type ArtifactRecord, activeArtifact, type Registry } from './registry.js';
import type { StoreContext } from './store-context.js';
import { removeTree } from './store-fs.js';
import { publishArtifact, storeContainer } from './store-publish.js';
import { recoverStore } from './store-recovery.js';
import type { ActivationResult, InstallOptions } from './store-types.js';

/** Source may be a package directory or a `.clatpkg` file (unpacked into staging first). */
async function stageSource(
  root: string,
  source: string,
): Promise<{ dir: string; cleanup: () => Promise<void> }> {
  const stat = await lstat(source).catch(() => undefined);
  if (stat?.isFile()) {
    const dest = join(root, 'staging', `${randomUUID()}-unpacked`);
    await unpackContainer(source, dest);
    return { dir: dest, cleanup: () => removeTree(dest) };
  }
  return { dir: source, cleanup: async () => undefined };
}

/**
 * The questions of an interactive install or update, asked before the lease (see
 * ask-first.ts) against the package and the registry as they are then. A package that cannot
 * be read here is left for the change under the lease to report, as before. The change hashes
 * the package again under the lease, on purpose: what it installs is what it checked there,
 * whatever happened to the source while the person answered (one more hash, interactive only).
 */
export async function askFirst(
  store: StoreContext,
  source: string,
  mode: 'install' | 'update',
  options: InstallOptions,
): Promise<InstallOptions> {
  if (options.confirm === undefined && options.askConfig === undefined) return options;
  let temp: string | undefined;
  let context: AskFirstContext;
  try {
    let dir = source;
    if ((await lstat(source)).isFile()) {
      // Not the store's staging directory: the lease holder's recovery wipes that.
      temp = await mkdtemp(join(tmpdir(), 'clat-ask-'));
      dir = join(temp, 'package');
      await unpackContainer(source, dir);
    }
    const inspected = await inspectPackage(dir);
    const { manifest } = inspected;
    const existing = (await store.readRegistry()).packages[manifest.id];
    // What the change refuses before it would ask, it refuses before the questions too: no
    // API key typed for an update of a package that is not installed.
    const installedAs = existing?.artifacts[existing.active.artifact];
    if (
      (mode === 'update' && existing === undefined) ||
      (mode === 'install' &&
        existing !== undefined &&
        existing.active.artifact !== inspected.tree.treeSha256) ||
      (installedAs !== undefined && !isDeepStrictEqual(installedAs.publisher, inspected.publisher))
    ) {
      return options;
    }
    context = { clatHome: store.clatHome, manifest, existing, mode };
  } catch {
    return options;
  } finally {
    if (temp !== undefined) await removeTree(temp).catch(() => undefined);
  }
  return answerFirst(context, options);
}

/**
 * Installs or updates from `source` under the lease, against `registry` as read there, with
 * `options` as {@link askFirst} answered them.
 */
export async function activatePackage(
  store: StoreContext,
  registry: Registry,
  source: string,
  mode: 'install' | 'update',
  options: InstallOptions,
): Promise<ActivationResult> {
  const staged = await stageSource(store.root, source);
  try {
    const inspected = await inspectPackage(staged.dir);
    const { manifest } = inspected;
    const id = manifest.id;
    const treeSha = inspected.tree.treeSha256;
    const existing = registry.packages[id];
    // Installing the exact bytes that are already active is a reinstall: it restores them.
    const reinstall = existing !== undefined && existing.active.artifact === treeSha;
    // The advice names the same source: `clat plugin update` alone is a usage error.
    const sourceArgument = options.sourceArgument ?? '<source>';
    const installed = existing === undefined ? undefined : activeArtifact(existing).manifest;
    // Another package that took the same id (its name and runtime differ) is not a newer
    // version of this one: say so before pointing to `update`, which would swap it in.
    const other =
      installed !== undefined &&
      (installed.name !== manifest.name || installed.runtime.kind !== manifest.runtime.kind);
    if (mode === 'install' && existing !== undefined && !reinstall) {
      throw new PackagingError(
        'PACKAGE_STATE',
        other
          ? `${id} is already installed as ${JSON.stringify(installed.name)} ${installed.version} (${installed.runtime.kind}), and this package, ${JSON.stringify(manifest.name)} ${manifest.version} (${manifest.runtime.kind}), has the same id: give one of them another "id" in its clat-plugin.json, or, to replace the installed one with it (its data in plugin-data/${id} stays), run "clat plugin update ${sourceArgument}"`
          : `${id} is already installed (version ${installed?.version}); to replace it, run "clat plugin update ${sourceArgument}"`,
      );
    }
    if (mode === 'update' && existing === undefined) {
      throw new PackagingError(
        'PACKAGE_STATE',
        `${id} is not installed; to install it, run "clat plugin install ${sourceArgument}"`,
      );
    }
    if (
      options.basedOn !== undefined &&
      existing !== undefined &&
      existing.active.artifact !== options.basedOn
    ) {
      throw new PackagingError(
        'STORE_BUSY',
        `${id} was changed by another clat process while this update was prepared (it is now version ${activeArtifact(existing).manifest.version}); nothing was changed, run the command again to update from what is installed now`,
      );
    }
    if (existing !== undefined && !reinstall) {
      const current = await store.verifyActivation(id, existing);
      const before = current.record.publisher;
      if (!isDeepStrictEqual(before, inspected.publisher)) {
        const name = (p: typeof before) =>
          p === undefined ? 'unsigned' : `publisher ${p.publisher}`;
        throw new PackagingError(
          'IDENTITY_MISMATCH',
          `${id} changes from ${name(before)} to ${name(inspected.publisher)} (or a different key); uninstall it first`,
        );
      }
    }
    const expansion = capabilityExpansion(
      existing?.active.acceptedCapabilities,
      manifest.capabilities,
    );
    if (expansion.length > 0 && options.acceptCapabilities !== true) {
      await confirmCapabilities(mode, manifest, expansion, options);
    }
    const before: SecretsBefore =
      existing === undefined || installed === undefined
        ? { values: {} }
        : await secretsBefore(store.clatHome, id, existing.active, installed);
    const { stored, secrets } = await resolveChangedConfig(
      manifest,
      existing?.active.config,
      before,
      options,
    );

    const published = await publishArtifact(store, id, treeSha, inspected, false, 'reinstall');
    await storeContainer(store, id, treeSha);

    // The new settings go to a file of their own: until the registry below is written,
    // the active version reads its own, whatever stops this update.
    const activation: Activation = {
      artifact: treeSha,
      acceptedCapabilities: manifest.capabilities,
      ...(stored === undefined ? {} : { config: stored }),
      secrets: await writeSecrets(store.clatHome, id, secrets),
    };
    const source = options.source ?? existing?.artifacts[treeSha]?.source;
    const artifacts: Record<string, ArtifactRecord> = {
      [treeSha]: {
        treeSha256: treeSha,
        manifest,
        trust: inspected.trust,
        ...(inspected.publisher === undefined ? {} : { publisher: inspected.publisher }),
        ...(source === undefined ? {} : { source }),
      },
    };
    let rollback: Activation | undefined;
    if (existing !== undefined && existing.active.artifact !== treeSha) {
      rollback = existing.active;
      artifacts[rollback.artifact] = existing.artifacts[rollback.artifact] as ArtifactRecord;
    } else if (existing?.rollback !== undefined && existing.rollback.artifact !== treeSha) {
      rollback = existing.rollback;
      artifacts[rollback.artifact] = existing.artifacts[rollback.artifact] as ArtifactRecord;
    }
    const next: Registry = {
      ...registry,
      packages: {
        ...registry.packages,
        [id]: {
          enabled: existing?.enabled ?? true,
          ...(existing?.roots === false ? { roots: false as const } : {}),
          active: activation,
          ...(rollback === undefined ? {} : { rollback }),
          artifacts,
        },
      },
    };
    await store.writeRegistry(next);
    await recoverStore(store.root, next);
    await sweepSecrets(store.clatHome, next);
    const result: ActivationResult = {
      id,
      version: manifest.version,
      treeSha256: treeSha,
      granted: expansion,
      manifest,
    };
    const rollbackVersion =
      rollback === undefined ? undefined : artifacts[rollback.artifact]?.manifest.version;
    if (rollbackVersion !== undefined) result.rollbackVersion = rollbackVersion;
    if (existing !== undefined && existing.active.artifact !== treeSha) {
      result.previousVersion = activeArtifact(existing).manifest.version;
    }
    if (other && installed !== undefined) {
      result.replaced = { name: installed.name, runtime: installed.runtime.kind };
    }
    if (reinstall) {
      result.reinstall = {
        settingsChanged:
          !isDeepStrictEqual(existing.active.config, stored) ||
          !isDeepStrictEqual(before.values, secrets) ||
          !isDeepStrictEqual(existing.active.acceptedCapabilities, manifest.capabilities),
        restored: published.replaced,
        ...(published.kept === undefined ? {} : { kept: published.kept }),
      };
    }
    return result;
  } finally {
    await staged.cleanup();
  }
}

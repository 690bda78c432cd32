/**
 * The transactional plugin store under `<CLAT_HOME>/plugin-store` (default `~/.clat`):
 * immutable artifacts at `artifacts/<id>/<treeSha>/`, staging at `staging/<uuid>`, and
 * `registry.json` as the single active pointer, replaced atomically (temp + fsync + rename +
 * directory fsync) only after the artifact was copied, re-verified and fsynced.
 * @module
 */
import { randomUUID } from 'node:crypto';
import { lstat, mkdir, mkdtemp, rename } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { fsyncDirectory } from '@clat/node-files';
import { resolveChangedConfig, type SecretsBefore, secretsBefore } from './activation-config.js';
import { type AskFirstContext, answerFirst } from './ask-first.js';
import { confirmCapabilities } from './capability-consent.js';
import { packPackage, unpackContainer } from './clatpkg.js';
import { isPackagingError, PackagingError } from './errors.js';
import { capabilityExpansion, type InspectedPackage, inspectPackage } from './inspect.js';
import { keepAddedFiles } from './plugin-data.js';
import { readSecrets, sweepSecrets, writeSecrets } from './plugin-secrets.js';
import {
  type Activation,
  type ArtifactRecord,
  activeArtifact,
  emptyRegistry,
  type PackageRecord,
  REGISTRY_FILE,
  type Registry,
} from './registry.js';
import { readRegistryFile, writeRegistryFile } from './registry-file.js';
import { copyTree, removeTree } from './store-fs.js';
import { listPackages } from './store-list.js';
import { StoreLock } from './store-lock.js';
import { recoverStore } from './store-recovery.js';
import type {
  ActivationResult,
  InstallOptions,
  PluginListEntry,
  PluginSettings,
  PluginStoreOptions,
  RepairResult,
  StoreLease,
  VerifiedArtifact,
} from './store-types.js';
import { registryMissingError, unlistedPackages } from './store-unlisted.js';
import { readPackageTree } from './tree.js';
import { reinstallHint, verifyInstalledArtifact } from './verify-artifact.js';

export const STORE_DIR = 'plugin-store';

/** A store change waits this long for another process's lease (see {@link PluginStoreOptions}). */
const LEASE_WAIT_MS = 20_000;
const LEASE_POLL_MS = 100;

/** One plugin store. Every mutation holds the storage-root lease and reads the registry fresh. */
export class PluginStore {
  readonly clatHome: string;
  readonly root: string;
  readonly registryFile: string;
  readonly #lock: StoreLock;
  readonly #waitMs: number;

  constructor(options: PluginStoreOptions) {
    this.clatHome = options.clatHome;
    this.root = join(this.clatHome, STORE_DIR);
    this.registryFile = join(this.root, REGISTRY_FILE);
    this.#lock = new StoreLock(this.root);
    this.#waitMs = options.waitMs ?? LEASE_WAIT_MS;
  }

  artifactDir(id: string, treeSha256: string): string {
    return join(this.root, 'artifacts', id, treeSha256);
  }

  /** The stored `.clatpkg` of an artifact: the shipped file list and the bytes repair restores. */
  containerPath(id: string, treeSha256: string): string {
    return join(this.root, 'containers', id, `${treeSha256}.clatpkg`);
  }

  /**
   * Reads the registry; anything malformed throws. A missing file is an empty registry only while
   * the store holds nothing: otherwise it throws REGISTRY_MISSING (see store-unlisted.ts), so no
   * recovery or sweep ever prunes against a registry that was lost.
   */
  async readRegistry(): Promise<Registry> {
    const registry = await readRegistryFile(this.registryFile);
    if (registry !== undefined) return registry;
    const unlisted = await unlistedPackages(this.root, this.clatHome);
    if (unlisted.ids.length > 0) {
      throw registryMissingError(this.registryFile, this.root, this.clatHome, unlisted);
    }
    return emptyRegistry();
  }

  async #writeRegistry(registry: Registry): Promise<void> {
    await this.#lock.assertHeld();
    await writeRegistryFile(this.registryFile, registry);
  }

  /**
   * Takes the storage-root lease (see {@link StoreLock}): what every change holds while it
   * runs, and what another process's change waits for.
   */
  acquireLease(): Promise<StoreLease> {
    return this.#lock.acquire();
  }

  /**
   * The lease, waiting up to `waitMs` for another process's: two `clat plugin` commands run at
   * once (a script, two terminals) take their turns instead of the second failing at once.
   */
  async #waitForLease(): Promise<StoreLease> {
    const deadline = Date.now() + this.#waitMs;
    for (;;) {
      try {
        return await this.acquireLease();
      } catch (error) {
        if (!isPackagingError(error) || error.code !== 'STORE_BUSY' || Date.now() >= deadline) {
          throw error;
        }
      }
      await new Promise((resolve) => setTimeout(resolve, LEASE_POLL_MS));
    }
  }

  /** Runs `task` holding the storage-root lease, after crash recovery of staging and orphans. */
  async #withLease<T>(task: (registry: Registry) => Promise<T>): Promise<T> {
    const lease = await this.#waitForLease();
    try {
      const registry = await this.readRegistry();
      await recoverStore(this.root, registry);
      await sweepSecrets(this.clatHome, registry);
      return await task(registry);
    } finally {
      await lease.release();
    }
  }

  /**
   * Re-inspects the installed bytes of one activation against the registry (see
   * {@link verifyInstalledArtifact}).
   */
  verifyActivation(
    id: string,
    record: PackageRecord,
    slot: 'active' | 'rollback' = 'active',
  ): Promise<VerifiedArtifact> {
    return verifyInstalledArtifact(this, id, record, slot);
  }

  /** Stores the `.clatpkg` of a freshly published artifact (kept while the artifact is). */
  async #storeContainer(id: string, treeSha: string): Promise<void> {
    const file = this.containerPath(id, treeSha);
    if (await lstat(file).catch(() => undefined)) return;
    await mkdir(join(this.root, 'containers', id), { recursive: true, mode: 0o700 });
    await packPackage(this.artifactDir(id, treeSha), file);
  }

  /**
   * Copies a verified tree into staging and swaps it in for the artifact dir of `treeSha`. When
   * that dir is replaced, the files a server added to it (often its data, such as server-memory's
   * `memory.jsonl`) are first copied to its data directory under `label`; returns whether it was
   * replaced, and where those files went, with their paths.
   */
  async #publishArtifact(
    id: string,
    treeSha: string,
    inspected: InspectedPackage,
    replace: boolean,
    label: string,
  ): Promise<{ replaced: boolean; added: string[]; kept?: string }> {
    const staging = join(this.root, 'staging', randomUUID());
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
    if (!(await lstat(this.registryFile).catch(() => undefined))) {
      await this.#writeRegistry(emptyRegistry());
    }
    const idDir = join(this.root, 'artifacts', id);
    await mkdir(idDir, { recursive: true, mode: 0o700 });
    const target = this.artifactDir(id, treeSha);
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
          result.kept = await keepAddedFiles(this.clatHome, id, target, result.added, label);
        await rename(target, join(this.root, 'staging', `${randomUUID()}-damaged`));
        await rename(staging, target);
        result.replaced = true;
      }
    } else {
      await rename(staging, target);
    }
    await fsyncDirectory(idDir);
    await fsyncDirectory(join(this.root, 'artifacts'));
    return result;
  }

  /**
   * Restores the active (and rollback) bytes of `id` from the stored containers: changed or
   * removed files come back, and files a server added move to its data directory. Nothing else
   * changes.
   */
  async repair(id: string): Promise<RepairResult> {
    return this.#withLease(async (registry) => {
      const record = this.#requireRecord(registry, id);
      const repaired: string[] = [];
      const slots = record.rollback === undefined ? ['active'] : ['active', 'rollback'];
      for (const slot of slots as ('active' | 'rollback')[]) {
        const activation = slot === 'active' ? record.active : record.rollback;
        if (activation === undefined) continue;
        // What was wrong and what was done, in the order it happened.
        const done: string[] = [];
        try {
          const verified = await this.verifyActivation(id, record, slot);
          if (verified.added.length === 0) continue;
        } catch (error) {
          // What was wrong, without the advice to run this very repair.
          const reason = isPackagingError(error) ? error.data?.reason : undefined;
          done.push(typeof reason === 'string' ? reason : (error as Error).message);
        }
        const version = record.artifacts[activation.artifact]?.manifest.version ?? '?';
        const container = this.containerPath(id, activation.artifact);
        if (!(await lstat(container).catch(() => undefined))) {
          throw new PackagingError(
            'PACKAGE_STATE',
            `no stored copy of ${id} ${version} to repair from (${container} is missing); ${reinstallHint(id, record.artifacts[activation.artifact] as ArtifactRecord)}`,
            { file: container },
          );
        }
        const unpacked = join(this.root, 'staging', `${randomUUID()}-unpacked`);
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
        const { added, kept } = await this.#publishArtifact(
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
      await recoverStore(this.root, registry);
      const version = activeArtifact(record).manifest.version;
      return { id, version, repaired };
    });
  }

  /** Source may be a package directory or a `.clatpkg` file (unpacked into staging first). */
  async #stageSource(source: string): Promise<{ dir: string; cleanup: () => Promise<void> }> {
    const stat = await lstat(source).catch(() => undefined);
    if (stat?.isFile()) {
      const dest = join(this.root, 'staging', `${randomUUID()}-unpacked`);
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
  async #askFirst(
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
      const existing = (await this.readRegistry()).packages[manifest.id];
      // What the change refuses before it would ask, it refuses before the questions too: no
      // API key typed for an update of a package that is not installed.
      const installedAs = existing?.artifacts[existing.active.artifact];
      if (
        (mode === 'update' && existing === undefined) ||
        (mode === 'install' &&
          existing !== undefined &&
          existing.active.artifact !== inspected.tree.treeSha256) ||
        (installedAs !== undefined &&
          !isDeepStrictEqual(installedAs.publisher, inspected.publisher))
      ) {
        return options;
      }
      context = { clatHome: this.clatHome, manifest, existing, mode };
    } catch {
      return options;
    } finally {
      if (temp !== undefined) await removeTree(temp).catch(() => undefined);
    }
    return answerFirst(context, options);
  }

  async #activate(
    source: string,
    mode: 'install' | 'update',
    given: InstallOptions,
  ): Promise<ActivationResult> {
    const options = await this.#askFirst(source, mode, given);
    return this.#withLease(async (registry) => {
      const staged = await this.#stageSource(source);
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
          const current = await this.verifyActivation(id, existing);
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
            : await secretsBefore(this.clatHome, id, existing.active, installed);
        const { stored, secrets } = await resolveChangedConfig(
          manifest,
          existing?.active.config,
          before,
          options,
        );

        const published = await this.#publishArtifact(id, treeSha, inspected, false, 'reinstall');
        await this.#storeContainer(id, treeSha);

        // The new settings go to a file of their own: until the registry below is written,
        // the active version reads its own, whatever stops this update.
        const activation: Activation = {
          artifact: treeSha,
          acceptedCapabilities: manifest.capabilities,
          ...(stored === undefined ? {} : { config: stored }),
          secrets: await writeSecrets(this.clatHome, id, secrets),
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
        await this.#writeRegistry(next);
        await recoverStore(this.root, next);
        await sweepSecrets(this.clatHome, next);
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
    });
  }

  /** Installs a package directory or `.clatpkg`; errors when the id is already installed. */
  install(source: string, options: InstallOptions = {}): Promise<ActivationResult> {
    return this.#activate(source, 'install', options);
  }

  /** Replaces an installed package; the previous activation becomes the rollback. */
  update(source: string, options: InstallOptions = {}): Promise<ActivationResult> {
    return this.#activate(source, 'update', options);
  }

  #requireRecord(registry: Registry, id: string): PackageRecord {
    const record = registry.packages[id];
    if (record === undefined) {
      throw new PackagingError('PACKAGE_STATE', `${id} is not installed`);
    }
    return record;
  }

  async #setEnabled(id: string, enabled: boolean): Promise<void> {
    await this.#withLease(async (registry) => {
      const record = this.#requireRecord(registry, id);
      if (enabled) await this.verifyActivation(id, record);
      await this.#writeRegistry({
        ...registry,
        packages: { ...registry.packages, [id]: { ...record, enabled } },
      });
    });
  }

  /** Stops launching a package; its bytes are not checked. */
  disable(id: string): Promise<void> {
    return this.#setEnabled(id, false);
  }

  /** Launches a package again after verifying its installed bytes. */
  enable(id: string): Promise<void> {
    return this.#setEnabled(id, true);
  }

  /**
   * Whether the package's server is offered the project root as an MCP root (the default) or
   * keeps the directories its arguments name; its bytes are not checked.
   */
  async setRoots(id: string, offered: boolean): Promise<void> {
    await this.#withLease(async (registry) => {
      const { roots: _roots, ...record } = this.#requireRecord(registry, id);
      await this.#writeRegistry({
        ...registry,
        packages: {
          ...registry.packages,
          [id]: offered ? record : { ...record, roots: false },
        },
      });
    });
  }

  /**
   * The active version's settings: the stored config and which sensitive settings have a value
   * (their values stay in the secrets file). Read-only: no lease.
   */
  async settings(id: string): Promise<PluginSettings> {
    const record = this.#requireRecord(await this.readRegistry(), id);
    const { manifest } = activeArtifact(record);
    const secrets = await readSecrets(this.clatHome, id, record.active, manifest);
    return {
      id,
      version: manifest.version,
      manifest,
      ...(record.active.config === undefined ? {} : { config: record.active.config }),
      sensitiveSet: Object.keys(secrets),
    };
  }

  /**
   * Gives the active version new settings (`config`, `--config` values, terminal answers) as
   * install and update would, without fetching or touching its bytes: a new activation of the
   * same artifact whose secrets file is written before the registry points to it. The rollback
   * slot stays as it was. `changed` is false, and nothing is written, when the settings are equal.
   */
  async configure(
    id: string,
    options: Pick<InstallOptions, 'config' | 'configValues' | 'askConfig'>,
  ): Promise<{ id: string; version: string; changed: boolean }> {
    // Its questions before the lease (ask-first.ts); the change below checks the answers again.
    const before = (await this.readRegistry().catch(() => undefined))?.packages[id];
    if (options.askConfig !== undefined && before !== undefined) {
      const { manifest } = activeArtifact(before);
      const context = { clatHome: this.clatHome, manifest, existing: before };
      options = await answerFirst({ ...context, mode: 'configure' }, options);
    }
    return this.#withLease(async (registry) => {
      const record = this.#requireRecord(registry, id);
      const { manifest } = activeArtifact(record);
      const before = await secretsBefore(this.clatHome, id, record.active, manifest);
      const { stored, secrets } = await resolveChangedConfig(
        manifest,
        record.active.config,
        before,
        options,
      );
      // An unreadable secrets file is replaced even by equal settings: that is the repair.
      const changed =
        before.unreadable !== undefined ||
        !isDeepStrictEqual(record.active.config, stored) ||
        !isDeepStrictEqual(before.values, secrets);
      if (!changed) return { id, version: manifest.version, changed };
      const active: Activation = {
        artifact: record.active.artifact,
        acceptedCapabilities: record.active.acceptedCapabilities,
        ...(stored === undefined ? {} : { config: stored }),
        secrets: await writeSecrets(this.clatHome, id, secrets),
      };
      const next: Registry = {
        ...registry,
        packages: { ...registry.packages, [id]: { ...record, active } },
      };
      await this.#writeRegistry(next);
      await sweepSecrets(this.clatHome, next);
      return { id, version: manifest.version, changed };
    });
  }

  /** Swaps the active and rollback activations after verifying the rollback bytes. */
  async rollback(id: string): Promise<ActivationResult> {
    return this.#withLease(async (registry) => {
      const record = this.#requireRecord(registry, id);
      if (record.rollback === undefined) {
        throw new PackagingError('PACKAGE_STATE', `${id} has no rollback activation`);
      }
      const verified = await this.verifyActivation(id, record, 'rollback');
      await this.#writeRegistry({
        ...registry,
        packages: {
          ...registry.packages,
          [id]: { ...record, active: record.rollback, rollback: record.active },
        },
      });
      return {
        id,
        version: verified.record.manifest.version,
        treeSha256: verified.record.treeSha256,
        granted: [],
        manifest: verified.record.manifest,
        rollbackVersion: activeArtifact(record).manifest.version,
      };
    });
  }

  /** Removes the registry record first, then the bytes; a cleanup failure is only reported. */
  async uninstall(id: string): Promise<{ cleanupError?: string }> {
    return this.#withLease(async (registry) => {
      this.#requireRecord(registry, id);
      const packages = { ...registry.packages };
      delete packages[id];
      const next = { ...registry, packages };
      await this.#writeRegistry(next);
      try {
        await removeTree(join(this.root, 'artifacts', id));
        await removeTree(join(this.root, 'containers', id));
        await sweepSecrets(this.clatHome, next);
        return {};
      } catch (error) {
        return { cleanupError: (error as Error).message };
      }
    });
  }

  /** Every installed package with a health column; a bad artifact only marks its own row. */
  list(): Promise<PluginListEntry[]> {
    return listPackages(this);
  }
}

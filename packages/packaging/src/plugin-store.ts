/**
 * The transactional plugin store under `<CLAT_HOME>/plugin-store` (default `~/.clat`):
 * immutable artifacts at `artifacts/<id>/<treeSha>/`, staging at `staging/<uuid>`, and
 * `registry.json` as the single active pointer, replaced atomically (temp + fsync + rename +
 * directory fsync) only after the artifact was copied, re-verified and fsynced.
 * @module
 */
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { resolveChangedConfig, secretsBefore } from './activation-config.js';
import { answerFirst } from './ask-first.js';
import { isPackagingError, PackagingError } from './errors.js';
import { readSecrets, sweepSecrets, writeSecrets } from './plugin-secrets.js';
import {
  type Activation,
  activeArtifact,
  emptyRegistry,
  type PackageRecord,
  REGISTRY_FILE,
  type Registry,
} from './registry.js';
import { readRegistryFile, writeRegistryFile } from './registry-file.js';
import { activatePackage, askFirst } from './store-activate.js';
import type { StoreContext } from './store-context.js';
import { removeTree } from './store-fs.js';
import { listPackages } from './store-list.js';
import { StoreLock } from './store-lock.js';
import { recoverStore } from './store-recovery.js';
import { repairPackage } from './store-repair.js';
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
import { verifyInstalledArtifact } from './verify-artifact.js';

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
  /** What store-activate.ts, store-publish.ts and store-repair.ts use of this store. */
  readonly #context: StoreContext;

  constructor(options: PluginStoreOptions) {
    this.clatHome = options.clatHome;
    this.root = join(this.clatHome, STORE_DIR);
    this.registryFile = join(this.root, REGISTRY_FILE);
    this.#lock = new StoreLock(this.root);
    this.#waitMs = options.waitMs ?? LEASE_WAIT_MS;
    this.#context = {
      clatHome: this.clatHome,
      root: this.root,
      registryFile: this.registryFile,
      artifactDir: (id, treeSha256) => this.artifactDir(id, treeSha256),
      containerPath: (id, treeSha256) => this.containerPath(id, treeSha256),
      readRegistry: () => this.readRegistry(),
      verifyActivation: (id, record, slot) => this.verifyActivation(id, record, slot),
      writeRegistry: (registry) => this.#writeRegistry(registry),
    };
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

  /**
   * Restores the active (and rollback) bytes of `id` from the stored containers: changed or
   * removed files come back, and files a server added move to its data directory. Nothing else
   * changes.
   */
  async repair(id: string): Promise<RepairResult> {
    return this.#withLease((registry) =>
      repairPackage(this.#context, registry, id, this.#requireRecord(registry, id)),
    );
  }

  async #activate(
    source: string,
    mode: 'install' | 'update',
    given: InstallOptions,
  ): Promise<ActivationResult> {
    const options = await askFirst(this.#context, source, mode, given);
    return this.#withLease((registry) =>
      activatePackage(this.#context, registry, source, mode, options),
    );
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

/**
 * The transactional plugin store under `<CLAT_HOME>/plugin-store` (default `~/.clat`):
 * immutable artifacts at `artifacts/<id>/<treeSha>/`, staging at `staging/<uuid>`, and
 * `registry.json` as the single active pointer, replaced atomically (temp + fsync + rename +
 * directory fsync) only after the artifact was copied, re-verified and fsynced.
 * @module
 */
import { randomUUID } from 'node:crypto';
import { link, lstat, mkdir, open, readdir, rename, unlink } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import type { JsonValue, PluginManifest } from '@clat/kernel';
import { packPackage, readContainerHeader, unpackContainer } from './clatpkg.js';
import { userConfigProblem } from './config-schema.js';
import { type AskConfigValue, applyConfigValues } from './config-values.js';
import { PackagingError } from './errors.js';
import {
  capabilityExpansion,
  type InspectedPackage,
  inspectPackage,
  readBoundedFile,
  validateConfig,
} from './inspect.js';
import { PACKAGE_LIMITS } from './limits.js';
import { readSecrets, splitSensitiveConfig, writeSecrets } from './plugin-secrets.js';
import {
  type Activation,
  type ArtifactRecord,
  type ArtifactSource,
  emptyRegistry,
  type PackageRecord,
  parseRegistry,
  REGISTRY_FILE,
  type Registry,
} from './registry.js';
import { copyTree, fsyncPath, lockIsStale, publishLock, removeTree } from './store-fs.js';
import { type PackageTree, readPackageTree, treeDigest } from './tree.js';

export const STORE_DIR = 'plugin-store';
const LOCK_FILE = 'lock';
export const STORE_BUSY_MESSAGE = 'CLAT storage is busy; close the running CLAT process and retry';

/** `CLAT_HOME` when set, else `~/.clat`. */
export function resolveClatHome(env: NodeJS.ProcessEnv = process.env): string {
  const home = env.CLAT_HOME;
  return home !== undefined && home !== '' ? home : join(homedir(), '.clat');
}

/** What a package asks to be granted, for a y/N confirmation. */
export interface CapabilityRequest {
  id: string;
  version: string;
  /** Labels to grant (only `tools` when a confirmation is asked for). */
  capabilities: string[];
}

export interface InstallOptions {
  /** Activation config; on update, omitted means "keep the current config". */
  config?: JsonValue;
  /** Grants capabilities the package adds (all of them on a fresh install). */
  acceptCapabilities?: boolean;
  /** Grants a tools-only request without asking (headless `--yes`). */
  yes?: boolean;
  /** Asks the person about a tools-only request; without it (and `yes`) such a request fails. */
  confirm?: (request: CapabilityRequest) => Promise<boolean>;
  /** Recorded with the artifact (e.g. the npm name, version and integrity). */
  source?: ArtifactSource;
  /** `--config key=value` settings, coerced to the manifest's userConfig types. */
  configValues?: Record<string, string>;
  /** Asks for required userConfig settings that are still missing (a terminal). */
  askConfig?: AskConfigValue;
}

export interface RepairResult {
  id: string;
  version: string;
  /** What was wrong before, one line per slot that needed restoring (empty: nothing was). */
  repaired: string[];
}

export interface ActivationResult {
  id: string;
  version: string;
  treeSha256: string;
  /** Capability labels newly granted by this activation. */
  granted: string[];
  /** Version now in the rollback slot, if any. */
  rollbackVersion?: string;
}

export interface PluginListEntry {
  id: string;
  name: string;
  version: string;
  runtime: PluginManifest['runtime']['kind'];
  treeSha256: string;
  enabled: boolean;
  rollbackVersion?: string;
  trust: 'local/unverified' | 'publisher/verified';
  publisher?: { publisher: string; publicKey: string };
  /** `ok`, or why the installed bytes cannot be launched (only this package is affected). */
  health: string;
  /** Where it came from (npm name, range, exact version and integrity). */
  source?: ArtifactSource;
}

export interface VerifiedArtifact {
  id: string;
  dir: string;
  record: ArtifactRecord;
  activation: Activation;
  inspected: InspectedPackage;
  /** Files the package did not ship that appeared in its directory (a server writing there). */
  added: string[];
}

/** Tells the person how to fix a damaged artifact (a command that works: see `repair`). */
function repairHint(id: string): string {
  return `run "clat plugin repair ${id}"`;
}

export function trustLabel(trust: ArtifactRecord['trust']): PluginListEntry['trust'] {
  return trust === 'publisher-verified' ? 'publisher/verified' : 'local/unverified';
}

/** The stored (non-sensitive) config with the sensitive values from the secrets file. */
function mergeConfig(
  stored: JsonValue | undefined,
  secrets: Record<string, JsonValue>,
): JsonValue | undefined {
  if (Object.keys(secrets).length === 0) return stored;
  const base =
    typeof stored === 'object' && stored !== null && !Array.isArray(stored) ? stored : {};
  return { ...base, ...secrets };
}

function toTreeEntry(file: { path: string; bytes: number; sha256: string }) {
  return { path: file.path, size: file.bytes, sha256: file.sha256 };
}

/** The held storage-root lease; release it (or `await using`) when done. */
export interface StoreLease extends AsyncDisposable {
  release(): Promise<void>;
}

export interface PluginStoreOptions {
  /** Defaults to {@link resolveClatHome}. */
  clatHome?: string;
}

/** One plugin store. Every mutation holds the storage-root lease and reads the registry fresh. */
export class PluginStore {
  readonly clatHome: string;
  readonly root: string;
  readonly registryFile: string;
  #leaseToken: string | undefined;

  constructor(options: PluginStoreOptions = {}) {
    this.clatHome = options.clatHome ?? resolveClatHome();
    this.root = join(this.clatHome, STORE_DIR);
    this.registryFile = join(this.root, REGISTRY_FILE);
  }

  artifactDir(id: string, treeSha256: string): string {
    return join(this.root, 'artifacts', id, treeSha256);
  }

  /** The stored `.clatpkg` of an artifact: the shipped file list and the bytes repair restores. */
  containerPath(id: string, treeSha256: string): string {
    return join(this.root, 'containers', id, `${treeSha256}.clatpkg`);
  }

  /** Reads the registry; a missing file is an empty registry, anything malformed throws. */
  async readRegistry(): Promise<Registry> {
    const stat = await lstat(this.registryFile).catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') return undefined;
      throw error;
    });
    if (stat === undefined) return emptyRegistry();
    if (stat.isSymbolicLink() || !stat.isFile()) {
      throw new PackagingError(
        'REGISTRY_INVALID',
        `${this.registryFile} is not a regular file; plugins are disabled until it is fixed or removed`,
        { file: this.registryFile },
      );
    }
    let buffer: Buffer;
    try {
      buffer = await readBoundedFile(this.registryFile, PACKAGE_LIMITS.registryBytes);
    } catch (error) {
      throw new PackagingError(
        'REGISTRY_INVALID',
        `${(error as Error).message}; plugins are disabled until it is fixed or removed`,
        { file: this.registryFile, cause: error },
      );
    }
    return parseRegistry(this.registryFile, buffer.toString('utf8'));
  }

  async #writeRegistry(registry: Registry): Promise<void> {
    // Two processes reclaiming one stale lease at once could both proceed; the loser notices
    // here, before it touches the pointer.
    const holder = await readBoundedFile(join(this.root, LOCK_FILE), 256)
      .then((b) => b.toString('utf8'))
      .catch(() => '');
    if (this.#leaseToken === undefined || holder !== this.#leaseToken) {
      throw new PackagingError('STORE_BUSY', STORE_BUSY_MESSAGE, {
        file: join(this.root, LOCK_FILE),
      });
    }
    const text = `${JSON.stringify(registry, null, 2)}\n`;
    if (Buffer.byteLength(text) > PACKAGE_LIMITS.registryBytes) {
      throw new PackagingError('REGISTRY_INVALID', `${this.registryFile} would exceed 4 MiB`);
    }
    const temp = join(this.root, `.${REGISTRY_FILE}.${randomUUID()}.tmp`);
    const handle = await open(temp, 'wx', 0o600);
    try {
      await handle.writeFile(text);
      await handle.sync();
    } finally {
      await handle.close();
    }
    try {
      await rename(temp, this.registryFile);
    } catch (error) {
      await unlink(temp).catch(() => undefined);
      throw error;
    }
    await fsyncPath(this.root);
  }

  /**
   * Takes the storage-root lease (a `lock` file holding `pid:token`). The lock is published
   * complete: the token is written to a temp file first and hard-linked into place, so a live
   * holder's lock is never empty. A lease whose holder process is gone is reclaimed; a live holder
   * (or a lock too fresh to judge) means {@link STORE_BUSY_MESSAGE}. A running CLAT session may
   * hold it so that `clat plugin` mutations wait for a restart.
   */
  async acquireLease(): Promise<StoreLease> {
    await mkdir(join(this.root, 'artifacts'), { recursive: true, mode: 0o700 });
    await mkdir(join(this.root, 'containers'), { recursive: true, mode: 0o700 });
    await mkdir(join(this.root, 'staging'), { recursive: true, mode: 0o700 });
    const lock = join(this.root, LOCK_FILE);
    const token = `${process.pid}:${randomUUID()}`;
    const busy = (cause?: unknown) =>
      new PackagingError('STORE_BUSY', STORE_BUSY_MESSAGE, {
        file: lock,
        ...(cause === undefined ? {} : { cause }),
      });
    if (!(await publishLock(lock, token))) {
      const seen = await readBoundedFile(lock, 256)
        .then((b) => b.toString('utf8'))
        .catch(() => undefined);
      if (seen === undefined || !(await lockIsStale(lock, seen))) throw busy();
      // Move the stale lock aside and make sure it is the one we judged: another process may
      // have reclaimed and re-taken it in between.
      const aside = join(this.root, `${LOCK_FILE}.${randomUUID()}.stale`);
      try {
        await rename(lock, aside);
      } catch (error) {
        throw busy(error);
      }
      const moved = await readBoundedFile(aside, 256)
        .then((b) => b.toString('utf8'))
        .catch(() => undefined);
      if (moved !== seen) {
        await link(aside, lock).catch(() => undefined);
        await unlink(aside).catch(() => undefined);
        throw busy();
      }
      await unlink(aside).catch(() => undefined);
      if (!(await publishLock(lock, token))) throw busy();
    }
    this.#leaseToken = token;
    let released = false;
    const release = async () => {
      if (released) return;
      released = true;
      if (this.#leaseToken === token) this.#leaseToken = undefined;
      const holder = await readBoundedFile(lock, 256)
        .then((b) => b.toString('utf8'))
        .catch(() => '');
      if (holder === token) await unlink(lock).catch(() => undefined);
    };
    return { release, [Symbol.asyncDispose]: release };
  }

  /** Runs `task` holding the storage-root lease, after crash recovery of staging and orphans. */
  async #withLease<T>(task: (registry: Registry) => Promise<T>): Promise<T> {
    const lease = await this.acquireLease();
    try {
      const registry = await this.readRegistry();
      await this.#recover(registry);
      return await task(registry);
    } finally {
      await lease.release();
    }
  }

  /** Wipes staging and registry temp files and prunes artifacts the registry does not reference. */
  async #recover(registry: Registry): Promise<void> {
    const staging = join(this.root, 'staging');
    for (const name of await readdir(staging)) await removeTree(join(staging, name));
    for (const name of await readdir(this.root)) {
      const lockLeftover =
        name.startsWith(`${LOCK_FILE}.`) && (name.endsWith('.tmp') || name.endsWith('.stale'));
      if ((name.startsWith(`.${REGISTRY_FILE}.`) && name.endsWith('.tmp')) || lockLeftover) {
        await unlink(join(this.root, name)).catch(() => undefined);
      }
    }
    const artifacts = join(this.root, 'artifacts');
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
    const containers = join(this.root, 'containers');
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

  /**
   * Re-inspects the installed bytes of one activation: every shipped file (the stored container's
   * list), the tree digest, the manifest and the entry digest must still match the registry.
   * Files a server added to its directory are returned in `added`, not fatal. Throws
   * ARTIFACT_TAMPERED naming the package and the repair command.
   */
  async verifyActivation(
    id: string,
    record: PackageRecord,
    slot: 'active' | 'rollback' = 'active',
  ): Promise<VerifiedArtifact> {
    const activation = slot === 'active' ? record.active : record.rollback;
    if (activation === undefined) {
      throw new PackagingError('PACKAGE_STATE', `${id} has no rollback activation`);
    }
    const artifact = record.artifacts[activation.artifact] as ArtifactRecord;
    const dir = this.artifactDir(id, activation.artifact);
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
    const shipped = await readContainerHeader(this.containerPath(id, activation.artifact)).catch(
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

  /** Stores the `.clatpkg` of a freshly published artifact (kept while the artifact is). */
  async #storeContainer(id: string, treeSha: string): Promise<void> {
    const file = this.containerPath(id, treeSha);
    if (await lstat(file).catch(() => undefined)) return;
    await mkdir(join(this.root, 'containers', id), { recursive: true, mode: 0o700 });
    await packPackage(this.artifactDir(id, treeSha), file);
  }

  /** Copies a verified tree into staging and swaps it in for the artifact dir of `treeSha`. */
  async #publishArtifact(
    id: string,
    treeSha: string,
    inspected: InspectedPackage,
    replace: boolean,
  ): Promise<void> {
    const staging = join(this.root, 'staging', randomUUID());
    await copyTree(inspected, staging);
    const restaged = await inspectPackage(staging);
    if (
      restaged.tree.treeSha256 !== treeSha ||
      !isDeepStrictEqual(restaged.manifest, inspected.manifest) ||
      !isDeepStrictEqual(restaged.publisher, inspected.publisher)
    ) {
      throw new PackagingError(
        'IDENTITY_MISMATCH',
        `${inspected.dir} changed while it was being installed (tree ${treeSha} became ${restaged.tree.treeSha256})`,
        { file: inspected.dir },
      );
    }
    const idDir = join(this.root, 'artifacts', id);
    await mkdir(idDir, { recursive: true, mode: 0o700 });
    const target = this.artifactDir(id, treeSha);
    if (await lstat(target).catch(() => undefined)) {
      // Same bytes already published (e.g. updating back to the rollback version). Keep an
      // intact copy, so a referenced artifact never disappears; move a damaged one aside.
      const intact =
        !replace &&
        (await readPackageTree(target)
          .then((tree) => tree.treeSha256 === treeSha)
          .catch(() => false));
      if (intact) await removeTree(staging);
      else {
        await rename(target, join(this.root, 'staging', `${randomUUID()}-damaged`));
        await rename(staging, target);
      }
    } else {
      await rename(staging, target);
    }
    await fsyncPath(idDir);
    await fsyncPath(join(this.root, 'artifacts'));
  }

  /**
   * Restores the active (and rollback) bytes of `id` from the stored containers: files a server
   * added are removed and changed or removed files come back. Nothing else changes.
   */
  async repair(id: string): Promise<RepairResult> {
    return this.#withLease(async (registry) => {
      const record = this.#requireRecord(registry, id);
      const repaired: string[] = [];
      const slots = record.rollback === undefined ? ['active'] : ['active', 'rollback'];
      for (const slot of slots as ('active' | 'rollback')[]) {
        const activation = slot === 'active' ? record.active : record.rollback;
        if (activation === undefined) continue;
        let problem: string | undefined;
        try {
          const verified = await this.verifyActivation(id, record, slot);
          if (verified.added.length > 0) {
            problem = `${slot}: removed ${verified.added.length} added file(s) (${verified.added.slice(0, 3).join(', ')}${verified.added.length > 3 ? ', …' : ''})`;
          }
        } catch (error) {
          problem = `${slot}: ${(error as Error).message.replace(/; run "clat plugin repair .*"$/, '')}`;
        }
        if (problem === undefined) continue;
        const version = record.artifacts[activation.artifact]?.manifest.version ?? '?';
        const container = this.containerPath(id, activation.artifact);
        if (!(await lstat(container).catch(() => undefined))) {
          throw new PackagingError(
            'PACKAGE_STATE',
            `no stored copy of ${id} ${version} to repair from; reinstall the same version with "clat plugin install <its package>" (accepted for the installed version)`,
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
        await this.#publishArtifact(id, activation.artifact, inspected, true);
        repaired.push(problem);
      }
      await this.#recover(registry);
      const version = record.artifacts[record.active.artifact]?.manifest.version ?? '';
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

  async #activate(
    source: string,
    mode: 'install' | 'update',
    options: InstallOptions,
  ): Promise<ActivationResult> {
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
        if (mode === 'install' && existing !== undefined && !reinstall) {
          throw new PackagingError(
            'PACKAGE_STATE',
            `${id} is already installed (version ${existing.artifacts[existing.active.artifact]?.manifest.version}); use "clat plugin update"`,
          );
        }
        if (mode === 'update' && existing === undefined) {
          throw new PackagingError(
            'PACKAGE_STATE',
            `${id} is not installed; use "clat plugin install"`,
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
          await this.#confirmCapabilities(mode, manifest, expansion, options);
        }
        const secretsBefore = existing === undefined ? {} : await readSecrets(this.clatHome, id);
        let config =
          options.config !== undefined
            ? options.config
            : mergeConfig(existing?.active.config, secretsBefore);
        if (options.configValues !== undefined || options.askConfig !== undefined) {
          config = await applyConfigValues(
            manifest,
            config,
            options.configValues ?? {},
            options.askConfig,
          );
        }
        validateConfig(manifest, config);
        const userProblem = userConfigProblem(manifest, config);
        if (userProblem !== undefined) {
          throw new PackagingError('CONFIG_INVALID', `config for ${id}: ${userProblem}`);
        }
        const { stored, secrets } = splitSensitiveConfig(manifest, config);

        await this.#publishArtifact(id, treeSha, inspected, false);
        await this.#storeContainer(id, treeSha);

        const activation: Activation = {
          artifact: treeSha,
          acceptedCapabilities: manifest.capabilities,
          ...(stored === undefined ? {} : { config: stored }),
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
              active: activation,
              ...(rollback === undefined ? {} : { rollback }),
              artifacts,
            },
          },
        };
        await writeSecrets(this.clatHome, id, secrets);
        await this.#writeRegistry(next);
        await this.#recover(next);
        const result: ActivationResult = {
          id,
          version: manifest.version,
          treeSha256: treeSha,
          granted: expansion,
        };
        const rollbackVersion =
          rollback === undefined ? undefined : artifacts[rollback.artifact]?.manifest.version;
        if (rollbackVersion !== undefined) result.rollbackVersion = rollbackVersion;
        return result;
      } finally {
        await staged.cleanup();
      }
    });
  }

  /**
   * Capabilities beyond `tools` need `acceptCapabilities`; a tools-only request is granted with
   * `yes` or a positive `confirm`.
   */
  async #confirmCapabilities(
    mode: 'install' | 'update',
    manifest: PluginManifest,
    expansion: string[],
    options: InstallOptions,
  ): Promise<void> {
    const verb = mode === 'install' ? 'requests' : 'adds';
    if (expansion.some((label) => label !== 'tools')) {
      throw new PackagingError(
        'CAPABILITY_EXPANSION',
        `${manifest.id} ${verb} capabilities ${expansion.join(', ')}; rerun with --accept-capabilities to grant them`,
        { data: { capabilities: expansion } },
      );
    }
    if (options.yes === true) return;
    if (options.confirm === undefined) {
      throw new PackagingError(
        'CAPABILITY_EXPANSION',
        `${manifest.id} ${verb} capability tools; rerun with --yes to grant it`,
        { data: { capabilities: expansion } },
      );
    }
    const granted = await options.confirm({
      id: manifest.id,
      version: manifest.version,
      capabilities: expansion,
    });
    if (!granted) {
      throw new PackagingError(
        'CAPABILITY_EXPANSION',
        `${manifest.id} was not ${mode === 'install' ? 'installed' : 'updated'}: capability tools was not granted`,
        { data: { capabilities: expansion } },
      );
    }
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
        rollbackVersion: record.artifacts[record.active.artifact]?.manifest.version ?? '',
      };
    });
  }

  /** Removes the registry record first, then the bytes; a cleanup failure is only reported. */
  async uninstall(id: string): Promise<{ cleanupError?: string }> {
    return this.#withLease(async (registry) => {
      this.#requireRecord(registry, id);
      const packages = { ...registry.packages };
      delete packages[id];
      await this.#writeRegistry({ ...registry, packages });
      try {
        await removeTree(join(this.root, 'artifacts', id));
        await removeTree(join(this.root, 'containers', id));
        await writeSecrets(this.clatHome, id, {});
        return {};
      } catch (error) {
        return { cleanupError: (error as Error).message };
      }
    });
  }

  /** Every installed package with a health column; a bad artifact only marks its own row. */
  async list(): Promise<PluginListEntry[]> {
    const registry = await this.readRegistry();
    const rows: PluginListEntry[] = [];
    for (const [id, record] of Object.entries(registry.packages).sort(([a], [b]) =>
      a < b ? -1 : 1,
    )) {
      const artifact = record.artifacts[record.active.artifact] as ArtifactRecord;
      let health = 'ok';
      try {
        const { added } = await this.verifyActivation(id, record);
        if (added.length > 0) {
          health = `ok, but ${added.length} file(s) were added to its directory (${added.slice(0, 3).join(', ')}); "clat plugin repair ${id}" removes them`;
        }
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
        trust: trustLabel(artifact.trust),
        health,
      };
      const rollbackVersion =
        record.rollback === undefined
          ? undefined
          : record.artifacts[record.rollback.artifact]?.manifest.version;
      if (rollbackVersion !== undefined) row.rollbackVersion = rollbackVersion;
      if (artifact.publisher !== undefined) row.publisher = artifact.publisher;
      if (artifact.source !== undefined) row.source = artifact.source;
      rows.push(row);
    }
    return rows;
  }
}

/**
 * The transactional plugin store under `<CLAT_HOME>/plugin-store` (default `~/.clat`):
 * immutable artifacts at `artifacts/<id>/<treeSha>/`, staging at `staging/<uuid>`, and
 * `registry.json` as the single active pointer, replaced atomically (temp + fsync + rename +
 * directory fsync) only after the artifact was copied, re-verified and fsynced.
 * @module
 */
import { randomUUID } from 'node:crypto';
import { constants } from 'node:fs';
import { link, lstat, mkdir, open, readdir, rename, rm, unlink } from 'node:fs/promises';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import type { JsonValue, PluginManifest } from '@clat/kernel';
import { unpackContainer } from './clatpkg.js';
import { PackagingError } from './errors.js';
import {
  capabilityExpansion,
  type InspectedPackage,
  inspectPackage,
  readBoundedFile,
  validateConfig,
} from './inspect.js';
import { PACKAGE_LIMITS } from './limits.js';
import {
  type Activation,
  type ArtifactRecord,
  emptyRegistry,
  type PackageRecord,
  parseRegistry,
  REGISTRY_FILE,
  type Registry,
} from './registry.js';
import { readPackageTree } from './tree.js';

export const STORE_DIR = 'plugin-store';
const LOCK_FILE = 'lock';
/** Age after which a lock file without a `pid:token` is considered abandoned. */
const LOCK_UNREADABLE_STALE_MS = 30_000;
export const STORE_BUSY_MESSAGE = 'CLAT storage is busy; close the running CLAT process and retry';

/** `CLAT_HOME` when set, else `~/.clat`. */
export function resolveClatHome(env: NodeJS.ProcessEnv = process.env): string {
  const home = env.CLAT_HOME;
  return home !== undefined && home !== '' ? home : join(homedir(), '.clat');
}

export interface InstallOptions {
  /** Activation config; on update, omitted means "keep the current config". */
  config?: JsonValue;
  /** Grants capabilities the package adds (all of them on a fresh install). */
  acceptCapabilities?: boolean;
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
}

export interface VerifiedArtifact {
  id: string;
  dir: string;
  record: ArtifactRecord;
  activation: Activation;
  inspected: InspectedPackage;
}

export function trustLabel(trust: ArtifactRecord['trust']): PluginListEntry['trust'] {
  return trust === 'publisher-verified' ? 'publisher/verified' : 'local/unverified';
}

async function fsyncPath(path: string): Promise<void> {
  const handle = await open(path, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Writes `token` to a temp file and links it to `lock`; false when a lock already exists. */
async function publishLock(lock: string, token: string): Promise<boolean> {
  const temp = `${lock}.${randomUUID()}.tmp`;
  const handle = await open(temp, 'wx', 0o600);
  try {
    await handle.writeFile(token);
    await handle.sync();
  } finally {
    await handle.close();
  }
  try {
    await link(temp, lock);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  } finally {
    await unlink(temp).catch(() => undefined);
  }
}

/** A lock left by a process that is gone; an unreadable one only once it is old. */
async function lockIsStale(lock: string, content: string): Promise<boolean> {
  const owner = /^(\d+)(?::|$)/.exec(content)?.[1];
  if (owner !== undefined) return !processAlive(Number(owner));
  // Not `pid:token`: written by something else or by an older CLAT; judge it by age, never as
  // stale the moment it is seen.
  const stat = await lstat(lock).catch(() => undefined);
  return stat !== undefined && Date.now() - stat.mtimeMs > LOCK_UNREADABLE_STALE_MS;
}

/** Copies an inspected tree file by file (0400, 0500 when executable), fsyncing files and dirs. */
async function copyTree(inspected: InspectedPackage, dest: string): Promise<void> {
  const dirs = new Set<string>([dest]);
  await mkdir(dest, { mode: 0o700 });
  for (const file of inspected.tree.files) {
    const target = join(dest, ...file.path.split('/'));
    const parent = dirname(target);
    if (!dirs.has(parent)) {
      await mkdir(parent, { recursive: true, mode: 0o700 });
      dirs.add(parent);
    }
    const source = await open(
      join(inspected.dir, file.path),
      constants.O_RDONLY | constants.O_NOFOLLOW,
    );
    try {
      const out = await open(target, 'wx', 0o600);
      try {
        const buffer = Buffer.alloc(Math.min(1024 * 1024, Math.max(1, file.size)));
        let position = 0;
        for (;;) {
          const { bytesRead } = await source.read(buffer, 0, buffer.length, position);
          if (bytesRead === 0) break;
          await out.write(buffer, 0, bytesRead, position);
          position += bytesRead;
        }
        await out.chmod(file.executable ? 0o500 : 0o400);
        await out.sync();
      } finally {
        await out.close();
      }
    } finally {
      await source.close();
    }
  }
  for (const dir of [...dirs].sort((a, b) => b.length - a.length)) await fsyncPath(dir);
}

/** Makes a tree writable again so it can be removed (artifact files are read-only). */
async function removeTree(path: string): Promise<void> {
  await rm(path, { recursive: true, force: true }).catch(async () => {
    const { chmod } = await import('node:fs/promises');
    const walk = async (dir: string): Promise<void> => {
      await chmod(dir, 0o700).catch(() => undefined);
      for (const entry of await readdir(dir, { withFileTypes: true }).catch(() => [])) {
        if (entry.isDirectory()) await walk(join(dir, entry.name));
      }
    };
    await walk(path);
    await rm(path, { recursive: true, force: true });
  });
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
  }

  /**
   * Re-inspects the installed bytes of one activation: the tree digest, the manifest and the entry
   * digest must still match the registry. Throws ARTIFACT_TAMPERED naming the package.
   */
  async verifyActivation(
    id: string,
    record: PackageRecord,
    slot: 'active' | 'rollback' = 'active',
  ) {
    const activation = slot === 'active' ? record.active : record.rollback;
    if (activation === undefined) {
      throw new PackagingError('PACKAGE_STATE', `${id} has no rollback activation`);
    }
    const artifact = record.artifacts[activation.artifact] as ArtifactRecord;
    const dir = this.artifactDir(id, activation.artifact);
    let inspected: InspectedPackage;
    try {
      inspected = await inspectPackage(dir);
    } catch (error) {
      throw new PackagingError(
        'ARTIFACT_TAMPERED',
        `installed package ${id} is damaged: ${(error as Error).message}`,
        { file: dir, cause: error },
      );
    }
    if (inspected.tree.treeSha256 !== activation.artifact) {
      throw new PackagingError(
        'ARTIFACT_TAMPERED',
        `installed bytes of ${id} changed (expected tree ${activation.artifact}, found ${inspected.tree.treeSha256}); reinstall it`,
        { file: dir },
      );
    }
    if (!isDeepStrictEqual(inspected.manifest, artifact.manifest)) {
      throw new PackagingError(
        'ARTIFACT_TAMPERED',
        `installed manifest of ${id} differs from the registry record; reinstall it`,
        { file: join(dir, 'clat-plugin.json') },
      );
    }
    // Trust is re-derived from the installed bytes: a signature that no longer verifies, or one
    // that appeared, is tampering too.
    if (
      inspected.trust !== artifact.trust ||
      !isDeepStrictEqual(inspected.publisher, artifact.publisher)
    ) {
      throw new PackagingError(
        'ARTIFACT_TAMPERED',
        `installed publisher identity of ${id} differs from the registry record; reinstall it`,
        { file: dir },
      );
    }
    return { id, dir, record: artifact, activation, inspected } satisfies VerifiedArtifact;
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
        const existing = registry.packages[id];
        if (mode === 'install' && existing !== undefined) {
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
        if (existing !== undefined) {
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
          throw new PackagingError(
            'CAPABILITY_EXPANSION',
            `${id} ${mode === 'install' ? 'requests' : 'adds'} capabilities ${expansion.join(', ')}; rerun with --accept-capabilities to grant them`,
            { data: { capabilities: expansion } },
          );
        }
        const config = options.config !== undefined ? options.config : existing?.active.config;
        validateConfig(manifest, config);

        const treeSha = inspected.tree.treeSha256;
        const staging = join(this.root, 'staging', randomUUID());
        await copyTree(inspected, staging);
        const restaged = await inspectPackage(staging);
        if (
          restaged.tree.treeSha256 !== treeSha ||
          !isDeepStrictEqual(restaged.manifest, manifest) ||
          !isDeepStrictEqual(restaged.publisher, inspected.publisher)
        ) {
          throw new PackagingError(
            'IDENTITY_MISMATCH',
            `${source} changed while it was being installed (tree ${treeSha} became ${restaged.tree.treeSha256})`,
            { file: source },
          );
        }
        const idDir = join(this.root, 'artifacts', id);
        await mkdir(idDir, { recursive: true, mode: 0o700 });
        const target = this.artifactDir(id, treeSha);
        if (await lstat(target).catch(() => undefined)) {
          // Same bytes already published (e.g. updating back to the rollback version). Keep an
          // intact copy, so a referenced artifact never disappears; move a damaged one aside.
          const intact = await readPackageTree(target)
            .then((tree) => tree.treeSha256 === treeSha)
            .catch(() => false);
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

        const activation: Activation = {
          artifact: treeSha,
          acceptedCapabilities: manifest.capabilities,
          ...(config === undefined ? {} : { config }),
        };
        const artifacts: Record<string, ArtifactRecord> = {
          [treeSha]: {
            treeSha256: treeSha,
            manifest,
            trust: inspected.trust,
            ...(inspected.publisher === undefined ? {} : { publisher: inspected.publisher }),
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
        await this.verifyActivation(id, record);
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
      rows.push(row);
    }
    return rows;
  }
}

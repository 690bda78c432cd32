/**
 * The options and results of the plugin store's operations.
 * @module
 */
import type { JsonValue, PluginManifest } from '@clat/kernel';
import type { AskConfigValue } from './config-values.js';
import type { InspectedPackage } from './inspect.js';
import type { ListedArtifactSource } from './listed-source.js';
import type { Activation, ArtifactRecord, ArtifactSource } from './registry.js';

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
  /**
   * The source as the person gave it, quoted for a shell: "already installed" and "not
   * installed" then name the exact `clat plugin update|install <source>` to run instead.
   */
  sourceArgument?: string;
  /** `--config key=value` settings, coerced to the manifest's userConfig types. */
  configValues?: Record<string, string>;
  /** Asks for required userConfig settings that are still missing (a terminal). */
  askConfig?: AskConfigValue;
  /**
   * The active artifact (tree digest) this update was prepared from, outside the lease: an npm
   * update carries the installed version's environment, arguments and bin into the package it
   * builds. Another active artifact under the lease means another process changed the package
   * meanwhile, and the update is refused instead of silently undoing that change.
   */
  basedOn?: string;
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
  /**
   * The manifest of the version now active, as the registry records it: its capabilities (a
   * package without `tools` serves none), its runtime and settings, for what the caller says.
   */
  manifest: PluginManifest;
  /** Version now in the rollback slot, if any. */
  rollbackVersion?: string;
  /** The version this activation replaced as the active one (an update to other bytes). */
  previousVersion?: string;
  /**
   * Set when these exact bytes were already the active version (installed or updated again):
   * whether that changed the settings (config, accepted capabilities), whether it restored
   * shipped files that had changed, and where files the server had added went when it did.
   */
  reinstall?: { settingsChanged: boolean; restored: boolean; kept?: string };
  /**
   * Set when the package this update replaced had another name or runtime: likely another
   * package that took the same id (or a rename), which the caller should say.
   */
  replaced?: { name: string; runtime: PluginManifest['runtime']['kind'] };
}

/** What `PluginStore.settings` reads: never a sensitive value, only whether one is set. */
export interface PluginSettings {
  id: string;
  version: string;
  manifest: PluginManifest;
  /** The stored config (its non-sensitive settings); absent when it has none. */
  config?: JsonValue;
  /** The sensitive settings that have a value (in the activation's secrets file). */
  sensitiveSet: string[];
}

export interface PluginListEntry {
  id: string;
  name: string;
  version: string;
  runtime: PluginManifest['runtime']['kind'];
  treeSha256: string;
  enabled: boolean;
  /** `false` when its server is not offered the project root as an MCP root. */
  roots?: false;
  rollbackVersion?: string;
  trust: 'local/unverified' | 'publisher/verified';
  publisher?: { publisher: string; publicKey: string };
  /** `ok`, or why the installed bytes cannot be launched (only this package is affected). */
  health: string;
  /** Where it came from (npm name, range, exact version and integrity); env by name only. */
  source?: ListedArtifactSource;
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

/** The held storage-root lease; release it (or `await using`) when done. */
export interface StoreLease extends AsyncDisposable {
  release(): Promise<void>;
}

export interface PluginStoreOptions {
  /**
   * The directory the store lives under (`<clatHome>/plugin-store`, plus the plugins' secrets
   * and data directories). Required: the library does not guess a home; the app resolves it.
   */
  clatHome: string;
  /**
   * How long a change waits for another process's lease (another `clat plugin` command, which
   * takes seconds) before it fails with STORE_BUSY; default 20 s, as CLAT's config edits wait.
   */
  waitMs?: number;
}

/**
 * What the runtime mounts from the store: verified `mcp-stdio` packages as kernel
 * `McpServerConfig` entries, `wasm-component` packages, and their static system prompts.
 * @module
 */
import { join } from 'node:path';
import type { McpServerConfig } from '@clat/adapter-mcp';
import { type JsonValue, sensitiveKeys } from '@clat/kernel';
import { whyNotWritable } from '@clat/node-files';
import { isPackagingError, PackagingError } from './errors.js';
import { substituteLaunchArgs, substituteLaunchValue } from './launch-vars.js';
import { ensurePluginDataDir, pluginDataDir } from './plugin-data.js';
import { readSecretsFile } from './plugin-secrets.js';
import { PluginStore } from './plugin-store.js';
import type { PackageRecord } from './registry.js';
import { trustLabel } from './store-list.js';

/** `<clatHome>/plugin-data/<id>`: where an installed server keeps its state. */
export { pluginDataDir } from './plugin-data.js';

export interface InstalledPrompt {
  /** The package id (also the server name). */
  server: string;
  name: string;
  description?: string;
  system: string;
}

export interface InstalledComponent {
  id: string;
  version: string;
  /** Absolute path of the verified `.wasm` component. */
  entry: string;
  dir: string;
  config?: unknown;
  /** Keys of `config` the manifest marks sensitive: the host redacts their values. */
  sensitive: string[];
}

export interface InstalledPackageIssue {
  id: string;
  message: string;
  /** The file or directory to fix, when it is not the registry (a data directory it cannot make). */
  file?: string;
}

/** A mounted package whose directory holds files it did not ship (reported, not fatal). */
export interface InstalledPackageNote {
  id: string;
  /** Package-relative paths a server added to its artifact directory. */
  added: string[];
  message: string;
}

export interface InstalledEntries {
  /** `mcp-stdio` packages, ready for the stdio adapter (origin `package`). */
  servers: McpServerConfig[];
  /** `wasm-component` packages, for the WASM adapter. */
  components: InstalledComponent[];
  /** Static system prompts of the mounted packages (contributed after connect). */
  prompts: InstalledPrompt[];
  /** Packages that were skipped because their bytes failed verification. */
  issues: InstalledPackageIssue[];
  /** Mounted packages whose artifact directory gained files (their shipped files verified). */
  notes: InstalledPackageNote[];
  /** Set when registry.json is malformed: nothing is mounted (fail closed). */
  registryError?: string;
}

/**
 * Why a directory under `clatHome` could not be made: the home's own refusal when it takes no
 * writes (a read-only file system answers a recursive mkdir with ENOENT), else the error.
 */
function unwritableReason(clatHome: string, error: unknown): string {
  return whyNotWritable(clatHome) ?? (error as Error).message;
}

/** Runs one substitution; its error names the field (`env TOKEN: the environment variable …`). */
function launchValue<T>(field: string, substitute: () => T): T {
  try {
    return substitute();
  } catch (error) {
    if (!isPackagingError(error)) throw error;
    throw new PackagingError(error.code, `its ${field}: ${error.message}`, { cause: error });
  }
}

type Verified = Awaited<ReturnType<PluginStore['verifyActivation']>>;

/** How often a package changed by another process meanwhile is read again before giving up. */
const REREADS = 3;

/**
 * The registry's record of `id` now, read again after one of its files was not found: `gone`
 * when another process uninstalled or disabled it meanwhile, `unreadable` when the registry
 * cannot be read either.
 */
async function recordNow(
  store: PluginStore,
  id: string,
): Promise<PackageRecord | 'gone' | 'unreadable'> {
  const registry = await store.readRegistry().catch(() => undefined);
  if (registry === undefined) return 'unreadable';
  const now = registry.packages[id];
  return now === undefined || !now.enabled ? 'gone' : now;
}

/**
 * Verifies `record`'s active version and reads its sensitive settings; undefined when the
 * package was uninstalled or disabled meanwhile. The registry is read without the store lease,
 * so a `configure` or `update` in another process may point the package at new secrets and sweep
 * the file of those read here: a missing secrets file is then no "no secrets". The registry is
 * read again, and the package started from what it now says, so a server never starts without
 * its settings (it did, with none, when `clat plugin configure` ran beside a start). So with files
 * that failed their check: an `uninstall` or `update` in another process removes them, and the
 * package is then not started, or started as it now is, instead of called damaged.
 */
async function verifiedWithSecrets(
  store: PluginStore,
  clatHome: string,
  id: string,
  record: PackageRecord,
): Promise<
  | { record: PackageRecord; verified: Verified; secrets: Record<string, JsonValue> }
  | { issue: string }
  | undefined
> {
  let current = record;
  for (let read = 0; ; read += 1) {
    let verified: Verified;
    try {
      verified = await store.verifyActivation(id, current);
    } catch (error) {
      // Removed or replaced by another process's uninstall or update while it was checked:
      // start what is installed now, or nothing, instead of calling it damaged.
      // A registry that cannot be read now says nothing of a change: the check's own failure.
      const now = await recordNow(store, id);
      if (now === 'gone') return undefined;
      if (
        now === 'unreadable' ||
        now.active.artifact === current.active.artifact ||
        read === REREADS
      ) {
        return { issue: (error as Error).message };
      }
      current = now;
      continue;
    }
    let secrets: Record<string, JsonValue> | undefined;
    try {
      secrets = await readSecretsFile(clatHome, id, verified.activation, verified.record.manifest);
    } catch (error) {
      return { issue: (error as Error).message };
    }
    if (secrets !== undefined) return { record: current, verified, secrets };
    const now = await recordNow(store, id);
    if (now === 'unreadable') {
      return {
        issue: `${id}: its settings could not be read, nor the plugin store's registry; retry`,
      };
    }
    if (now === 'gone') return undefined;
    // Still the same activation: it has no sensitive values.
    if (now.active.secrets === verified.activation.secrets) {
      return { record: current, verified, secrets: {} };
    }
    if (read === REREADS) {
      return {
        issue: `${id} kept changing while CLAT started (another clat process is configuring or updating it); retry`,
      };
    }
    current = now;
  }
}

/**
 * Reads the store under `clatHome` and verifies every enabled package's installed bytes before
 * returning its launch entry. A damaged package is reported in `issues` and skipped; a malformed
 * registry mounts nothing.
 */
export async function installedServerEntries(
  clatHome: string,
  /** What `${env.NAME}` in a server's env and args reads (default: this process's environment). */
  env: Readonly<Record<string, string | undefined>> = process.env,
): Promise<InstalledEntries> {
  const store = new PluginStore({ clatHome });
  const out: InstalledEntries = {
    servers: [],
    components: [],
    prompts: [],
    issues: [],
    notes: [],
  };
  let registry: Awaited<ReturnType<PluginStore['readRegistry']>>;
  try {
    registry = await store.readRegistry();
  } catch (error) {
    if (!isPackagingError(error)) throw error;
    out.registryError = error.message;
    return out;
  }
  for (const [id, listed] of Object.entries(registry.packages)) {
    if (!listed.enabled) continue;
    const read = await verifiedWithSecrets(store, clatHome, id, listed);
    if (read === undefined) continue;
    if ('issue' in read) {
      out.issues.push({ id, message: read.issue });
      continue;
    }
    const { record, verified, secrets } = read;
    const { manifest } = verified.record;
    const entry = join(verified.dir, ...manifest.runtime.entry.split('/'));
    if (verified.added.length > 0) {
      out.notes.push({
        id,
        added: verified.added,
        message: `${id} wrote ${verified.added.length} file(s) into its installed directory (${verified.added.slice(0, 3).join(', ')}); its shipped files are intact; "clat plugin repair ${id}" moves them to its data directory`,
      });
    }
    // Sensitive values live in the secrets file (0600), not the registry: both kinds of server
    // get them back at launch.
    let config: JsonValue | undefined = verified.activation.config;
    if (Object.keys(secrets).length > 0) {
      const base =
        typeof config === 'object' && config !== null && !Array.isArray(config) ? config : {};
      config = { ...base, ...secrets };
    }
    if (manifest.runtime.kind === 'wasm-component') {
      out.components.push({
        id,
        version: manifest.version,
        entry,
        dir: verified.dir,
        sensitive: sensitiveKeys(manifest),
        ...(config === undefined ? {} : { config }),
      });
    } else {
      // The data dir exists (0700) before the server starts, whatever the umask. A home that
      // cannot hold it (read-only, not writable) stops this server only, with the reason.
      let data: string;
      try {
        data = await ensurePluginDataDir(clatHome, id);
      } catch (error) {
        const dir = pluginDataDir(clatHome, id);
        out.issues.push({
          id,
          file: dir,
          message: `cannot create its data directory ${dir}: ${unwritableReason(clatHome, error)}`,
        });
        continue;
      }
      const vars = { data, root: verified.dir, config, manifest, env };
      const serverEnv: Record<string, string> = {};
      let args: string[];
      try {
        for (const [name, value] of Object.entries(manifest.runtime.env ?? {})) {
          serverEnv[name] = launchValue(`env ${name}`, () => substituteLaunchValue(value, vars));
        }
        args = launchValue('arguments', () =>
          substituteLaunchArgs(manifest.runtime.args ?? [], vars),
        );
      } catch (error) {
        // An environment variable its `${env.NAME}` needs is unset: this server is not started.
        out.issues.push({ id, message: (error as Error).message });
        continue;
      }
      Object.assign(serverEnv, {
        CLAT_PLUGIN_ID: id,
        CLAT_PLUGIN_NAME: manifest.name,
        CLAT_PLUGIN_VERSION: manifest.version,
        CLAT_PLUGIN_TREE_SHA256: verified.record.treeSha256,
        CLAT_PLUGIN_TRUST: trustLabel(verified.record.trust),
        // The artifact dir is immutable (digest-checked before launch); state goes here instead.
        CLAT_PLUGIN_DATA: data,
      });
      if (config !== undefined) serverEnv.CLAT_PLUGIN_CONFIG = JSON.stringify(config);
      if (verified.record.publisher !== undefined) {
        serverEnv.CLAT_PLUGIN_PUBLISHER = verified.record.publisher.publisher;
      }
      const node = manifest.runtime.interpreter === 'node';
      out.servers.push({
        transport: 'stdio',
        name: id,
        origin: 'package',
        // `interpreter: node` runs the entry with the Node.js that runs CLAT.
        command: node ? process.execPath : entry,
        args: node ? [entry, ...args] : args,
        env: serverEnv,
        cwd: verified.dir,
        ...(record.roots === false ? { roots: false } : {}),
        // Install asked consent for the declared capabilities only: no `tools`, no tools.
        ...(manifest.capabilities.tools
          ? {}
          : { withholdTools: 'because its package manifest does not declare capability `tools`' }),
      });
    }
    for (const prompt of manifest.prompts ?? []) {
      out.prompts.push({
        server: id,
        name: prompt.name,
        system: prompt.system,
        ...(prompt.description === undefined ? {} : { description: prompt.description }),
      });
    }
  }
  return out;
}

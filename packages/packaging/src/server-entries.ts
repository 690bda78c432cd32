/**
 * What the runtime mounts from the store: verified `mcp-stdio` packages as kernel
 * `McpServerConfig` entries, their static system prompts, and the merge with user mcp.json
 * entries (a same-named user entry wins).
 * @module
 */
import { join } from 'node:path';
import type { McpServerConfig } from '@clat/adapter-mcp';
import { isPackagingError } from './errors.js';
import { PluginStore, trustLabel } from './plugin-store.js';

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
}

export interface InstalledPackageIssue {
  id: string;
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
  /** Set when registry.json is malformed: nothing is mounted (fail closed). */
  registryError?: string;
}

/**
 * Reads the store under `clatHome` and verifies every enabled package's installed bytes before
 * returning its launch entry. A damaged package is reported in `issues` and skipped; a malformed
 * registry mounts nothing.
 */
export async function installedServerEntries(clatHome: string): Promise<InstalledEntries> {
  const store = new PluginStore({ clatHome });
  const out: InstalledEntries = { servers: [], components: [], prompts: [], issues: [] };
  let registry: Awaited<ReturnType<PluginStore['readRegistry']>>;
  try {
    registry = await store.readRegistry();
  } catch (error) {
    if (!isPackagingError(error)) throw error;
    out.registryError = error.message;
    return out;
  }
  for (const [id, record] of Object.entries(registry.packages)) {
    if (!record.enabled) continue;
    let verified: Awaited<ReturnType<PluginStore['verifyActivation']>>;
    try {
      verified = await store.verifyActivation(id, record);
    } catch (error) {
      out.issues.push({ id, message: (error as Error).message });
      continue;
    }
    const { manifest } = verified.record;
    const entry = join(verified.dir, ...manifest.runtime.entry.split('/'));
    const config = verified.activation.config;
    if (manifest.runtime.kind === 'wasm-component') {
      out.components.push({
        id,
        version: manifest.version,
        entry,
        dir: verified.dir,
        ...(config === undefined ? {} : { config }),
      });
    } else {
      const env: Record<string, string> = {
        CLAT_PLUGIN_ID: id,
        CLAT_PLUGIN_NAME: manifest.name,
        CLAT_PLUGIN_VERSION: manifest.version,
        CLAT_PLUGIN_TREE_SHA256: verified.record.treeSha256,
        CLAT_PLUGIN_TRUST: trustLabel(verified.record.trust),
        // The artifact dir is immutable (digest-checked before launch); state goes here instead.
        CLAT_PLUGIN_DATA: join(clatHome, 'plugin-data', id),
      };
      if (config !== undefined) env.CLAT_PLUGIN_CONFIG = JSON.stringify(config);
      if (verified.record.publisher !== undefined) {
        env.CLAT_PLUGIN_PUBLISHER = verified.record.publisher.publisher;
      }
      out.servers.push({
        transport: 'stdio',
        name: id,
        origin: 'package',
        command: entry,
        args: [...(manifest.runtime.args ?? [])],
        env,
        cwd: verified.dir,
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

/**
 * Merges user-configured servers with installed ones: a same-named user entry wins, and the
 * shadowed package names are returned so `/mcp` can say why a package is not mounted.
 */
export function mergeServerEntries(
  user: readonly McpServerConfig[],
  installed: readonly McpServerConfig[],
): { servers: McpServerConfig[]; shadowed: string[] } {
  const taken = new Set(user.map((server) => server.name));
  const shadowed: string[] = [];
  const servers = [...user];
  for (const server of installed) {
    if (taken.has(server.name)) shadowed.push(server.name);
    else {
      taken.add(server.name);
      servers.push(server);
    }
  }
  return { servers, shadowed };
}

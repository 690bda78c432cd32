/**
 * Mounts every entry of `~/.clat/plugins.json` in parallel. Bad entries and failed plugins are
 * reported one by one (with transport `wasm`); they never stop the others.
 * @module
 */
import { join } from 'node:path';
import { errorMessage } from '@clat/kernel';
import { isWasmError, WasmErrorCode } from './errors.js';
import {
  type MountedWasmPlugin,
  type MountWasmPluginOptions,
  mountWasmPlugin,
  WASM_PROTOCOL_MANIFEST,
  WASM_PROTOCOL_PATH,
  type WasmPluginStatus,
} from './mount.js';
import {
  loadPluginsJson,
  PLUGINS_FILE,
  type PluginsJsonIssue,
  resolveManifestEntry,
  type WasmPluginEntry,
} from './plugins-json.js';

export type MountPluginsJsonOptions = Omit<
  MountWasmPluginOptions,
  'name' | 'componentPath' | 'sha256' | 'config' | 'capabilities' | 'dirs'
> & {
  /** Default: `<clatHome>/plugins.json`. */
  file?: string | undefined;
  home?: string | undefined;
};

export interface MountedPluginsJson {
  plugins: MountedWasmPlugin[];
  /** Entries that were skipped before mounting (bad fields). */
  issues: PluginsJsonIssue[];
  statuses(): WasmPluginStatus[];
  close(): Promise<void>;
}

function failedPlugin(entry: WasmPluginEntry, code: string, message: string): MountedWasmPlugin {
  const status: WasmPluginStatus = {
    name: entry.id,
    transport: 'wasm',
    protocol: entry.manifest === undefined ? WASM_PROTOCOL_PATH : WASM_PROTOCOL_MANIFEST,
    state: 'failed',
    tools: 0,
    restarts: 0,
    writable: false,
    error: { code, message },
    notes: [],
    outputTail: [],
  };
  return {
    name: entry.id,
    guest: undefined,
    status: () => ({ ...status, notes: [], outputTail: [] }),
    requestWriteAccess: async () => false,
    close: async () => {},
  };
}

async function mountEntry(
  entry: WasmPluginEntry,
  options: MountPluginsJsonOptions,
): Promise<MountedWasmPlugin> {
  const base = {
    ...options,
    name: entry.id,
    dirs: entry.dirs,
    ...(entry.config === undefined ? {} : { config: entry.config }),
  };
  if (entry.path !== undefined) {
    return mountWasmPlugin({ ...base, componentPath: entry.path, sha256: entry.sha256 });
  }
  try {
    const manifest = await resolveManifestEntry(entry, { validateConfig: true });
    return await mountWasmPlugin({
      ...base,
      componentPath: manifest.componentPath,
      sha256: manifest.sha256,
      capabilities: manifest.capabilities,
    });
  } catch (error) {
    const code = isWasmError(error) ? error.code : WasmErrorCode.WASM_CONFIG_INVALID;
    return failedPlugin(entry, code, errorMessage(error));
  }
}

/** Reads plugins.json (missing file: nothing) and mounts each valid entry. */
export async function mountPluginsJson(
  options: MountPluginsJsonOptions,
): Promise<MountedPluginsJson> {
  const { clatHome } = options;
  const file = options.file ?? join(clatHome, PLUGINS_FILE);
  const parsed = await loadPluginsJson(file, {
    clatHome,
    ...(options.home === undefined ? {} : { home: options.home }),
  });
  const plugins = await Promise.all(parsed.entries.map((entry) => mountEntry(entry, options)));
  return {
    plugins,
    issues: parsed.issues,
    statuses: () => plugins.map((plugin) => plugin.status()),
    close: async () => {
      await Promise.allSettled(plugins.map((plugin) => plugin.close()));
    },
  };
}

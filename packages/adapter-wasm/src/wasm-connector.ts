/**
 * The WASM connector: `kind: 'wasm'` entries (plugins.json entries, installed wasm-component
 * packages) run as `clat:plugin` components in sandboxed workers.
 * @module
 */
import {
  type Connector,
  type MountContext,
  type MountEntry,
  MountError,
  type MountedPlugin,
  type MountProgress,
} from '@clat/kernel';
import { WasmGrantStore } from './grants.js';
import { mountWasmPlugin, type WasmPluginStatus } from './mount.js';
import { resolveManifestEntry } from './plugins-json.js';

/** The connector kind of WASM component entries. */
export const WASM_KIND = 'wasm';

/** The config of one `kind: 'wasm'` entry. */
export interface WasmEntryConfig {
  /** Absolute component path (path entries). */
  path?: string;
  /** Manifest file or package directory (manifest entries: capabilities ceiling, pins). */
  manifest?: string;
  sha256?: string;
  /** The plugin's own config (`config.get`). */
  config?: unknown;
  /** Directories the plugin asks for (plugins.json). */
  dirs: string[];
  /** Whether `config` is checked against the manifest now (plugins.json); packages were at install. */
  validateConfig?: boolean;
}

export interface WasmConnectorOptions {
  /** The CLAT home: compiled-module cache and the sandbox's never-exposed directories. */
  clatHome: string;
  /** Recorded write grants (bound to name + digest + dirs); missing or invalid means read-only. */
  grantsFile: string;
}

function progressOf(status: WasmPluginStatus, extraWarnings: readonly string[]): MountProgress {
  const progress: MountProgress = {
    protocolVersion: status.protocol,
    tools: status.tools,
    stderrTail: status.outputTail,
    warnings: [...status.notes, ...extraWarnings],
  };
  if (status.state === 'loading') progress.phase = 'loading';
  return progress;
}

/** The connector of `kind: 'wasm'` entries. */
export function createWasmConnector(options: WasmConnectorOptions): Connector<WasmEntryConfig> {
  return {
    kind: WASM_KIND,
    describe: (entry: MountEntry<WasmEntryConfig>) => ({
      transport: 'wasm',
      target: entry.config.path ?? entry.config.manifest ?? '',
    }),
    async mount(entry, ctx: MountContext): Promise<MountedPlugin> {
      const plugin = entry.config;
      let componentPath = plugin.path;
      let sha256 = plugin.sha256;
      let capabilities:
        | Awaited<ReturnType<typeof resolveManifestEntry>>['capabilities']
        | undefined;
      if (componentPath === undefined) {
        try {
          const manifest = await resolveManifestEntry(
            {
              id: entry.name,
              dirs: plugin.dirs,
              ...(plugin.manifest === undefined ? {} : { manifest: plugin.manifest }),
              ...(plugin.sha256 === undefined ? {} : { sha256: plugin.sha256 }),
              ...(plugin.config === undefined ? {} : { config: plugin.config }),
            },
            { validateConfig: plugin.validateConfig === true },
          );
          componentPath = manifest.componentPath;
          sha256 = manifest.sha256;
          capabilities = manifest.capabilities;
        } catch (error) {
          throw new MountError((error as Error).message, [], error);
        }
      }
      const grants = await WasmGrantStore.load(options.grantsFile);
      const grantWarnings = grants.warning === undefined ? [] : [grants.warning];
      const mounted = await mountWasmPlugin({
        grants,
        name: entry.name,
        componentPath,
        sha256,
        config: plugin.config,
        capabilities,
        registry: ctx.registry,
        scope: ctx.scope,
        hostServices: ctx.hostServices,
        projectRoot: ctx.projectRoot,
        clatHome: options.clatHome,
        dirs: plugin.dirs,
        onStatus: (status) => ctx.onProgress(progressOf(status, grantWarnings)),
      });
      const status = mounted.status();
      if (status.state !== 'ready') {
        throw new MountError(
          status.error === undefined
            ? `plugin ended in state ${status.state}`
            : `${status.error.message} [${status.error.code}]`,
          status.outputTail,
        );
      }
      return {
        progress: progressOf(status, grantWarnings),
        current: () => {
          const now = mounted.status();
          const progress: MountProgress & { failure?: string } = progressOf(now, grantWarnings);
          if (now.state === 'failed') progress.failure = now.error?.message ?? 'plugin failed';
          return progress;
        },
      };
    },
  };
}

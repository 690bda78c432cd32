/**
 * The WASM connector: `kind: 'wasm'` entries (plugins.json entries, installed wasm-component
 * packages) run as `clat:plugin` components in sandboxed workers. The plugin's report is the
 * kernel's `MountReport`, handed to the host as it is; the host owns the plugin's scope and the
 * one redactor, to which this connector only names the sensitive config values.
 * @module
 */
import {
  type Connector,
  type MountContext,
  type MountDescription,
  type MountEntry,
  MountError,
  type MountedPlugin,
  sensitiveConfigValues,
} from '@clat/kernel';
import { WasmGrantStore } from './grants.js';
import { mountWasmPlugin } from './mount.js';
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
  /**
   * Keys of `config` whose values are secrets (plugins.json `sensitive`, or the manifest's
   * sensitive `userConfig` keys of an installed package): the host redacts those values from
   * every status text. A manifest's own sensitive keys are added at mount.
   */
  sensitive?: readonly string[];
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
  /** Compiled-module cache. Default: `<clatHome>/cache/wasm`. */
  cacheDir?: string;
  /**
   * Registers a plugin's tools from the list its component gave at an earlier mount with the
   * same inputs, and starts its instance at the first call (`MountWasmPluginOptions.lazyStart`).
   */
  lazyStart?: boolean;
}

/** The connector of `kind: 'wasm'` entries. */
export function createWasmConnector(options: WasmConnectorOptions): Connector<WasmEntryConfig> {
  return {
    kind: WASM_KIND,
    describe: (entry: MountEntry<WasmEntryConfig>): MountDescription => ({
      transport: 'wasm',
      target: entry.config.path ?? entry.config.manifest ?? '',
      secrets: sensitiveConfigValues(entry.config.config, entry.config.sensitive ?? []),
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
          // Before the guest runs: the host's redactor learns what the manifest marks sensitive.
          for (const secret of sensitiveConfigValues(plugin.config, manifest.sensitive)) {
            ctx.redactor.add(secret);
          }
        } catch (error) {
          throw new MountError((error as Error).message, [], error);
        }
      }
      const grants = await WasmGrantStore.load(options.grantsFile);
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
        cacheDir: options.cacheDir,
        dirs: plugin.dirs,
        lazyStart: options.lazyStart,
        redactor: ctx.redactor,
        onStatus: (report) => ctx.onProgress(report),
      });
      const report = mounted.status();
      if (report.state !== 'connected') {
        throw new MountError(
          report.failure ?? `wasm plugin ${entry.name} ended in state ${report.state}`,
          report.stderrTail,
        );
      }
      return { progress: report, current: mounted.status };
    },
  };
}

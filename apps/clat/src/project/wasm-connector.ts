/**
 * The WASM connector: `clat:plugin` components run by `@clat/adapter-wasm` in sandboxed workers,
 * adapted to the project mount's ServerConnector port.
 * @module
 */
import {
  grantsPath,
  mountWasmPlugin,
  resolveManifestEntry,
  WasmGrantStore,
  type WasmPluginStatus,
} from '@clat/adapter-wasm';
import {
  type MountedServer,
  type ServerConnector,
  ServerMountError,
  type ServerMountRequest,
  type ServerProgress,
} from './server-connector.js';

function progressOf(
  status: WasmPluginStatus,
  extraWarnings: readonly string[] = [],
): ServerProgress {
  return {
    protocolVersion: status.protocol,
    tools: status.tools,
    stderrTail: status.outputTail,
    warnings: [...status.notes, ...extraWarnings],
    ...(status.state === 'loading' ? { phase: 'loading' } : {}),
  };
}

export function createWasmConnector(): ServerConnector {
  return {
    transports: ['wasm'],
    async mount(request: ServerMountRequest): Promise<MountedServer> {
      const entry = request.server;
      if (entry.transport !== 'wasm') throw new ServerMountError('not a WASM plugin entry');
      let componentPath = entry.path;
      let sha256 = entry.sha256;
      let capabilities:
        | Awaited<ReturnType<typeof resolveManifestEntry>>['capabilities']
        | undefined;
      if (componentPath === undefined) {
        try {
          // The plugins.json pin and config go in so a disagreeing pin or a config that misses
          // the manifest's required keys fails here; installed packages had their config
          // checked by the store at install.
          const manifest = await resolveManifestEntry(
            {
              id: entry.name,
              dirs: entry.dirs,
              ...(entry.manifest === undefined ? {} : { manifest: entry.manifest }),
              ...(entry.sha256 === undefined ? {} : { sha256: entry.sha256 }),
              ...(entry.config === undefined ? {} : { config: entry.config }),
            },
            { validateConfig: entry.origin === 'plugins.json' },
          );
          componentPath = manifest.componentPath;
          sha256 = manifest.sha256;
          capabilities = manifest.capabilities;
        } catch (error) {
          throw new ServerMountError((error as Error).message);
        }
      }
      // Write grants recorded in ~/.clat/plugin-grants.json (bound to name + digest + dirs); a
      // missing or invalid file means read-only preopens, never a failed mount.
      const grants = await WasmGrantStore.load(grantsPath(request.clatHome));
      const grantWarnings = grants.warning === undefined ? [] : [grants.warning];
      const mounted = await mountWasmPlugin({
        grants,
        name: entry.name,
        componentPath,
        sha256,
        config: entry.config,
        capabilities,
        registry: request.registry,
        scope: request.scope,
        hostServices: request.hostServices,
        projectRoot: request.projectRoot,
        clatHome: request.clatHome,
        dirs: entry.dirs,
        onStatus: (status) => request.onProgress(progressOf(status, grantWarnings)),
      });
      const status = mounted.status();
      if (status.state !== 'ready') {
        throw new ServerMountError(
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
          return {
            ...progressOf(now, grantWarnings),
            ...(now.state === 'failed' ? { failure: now.error?.message ?? 'plugin failed' } : {}),
          };
        },
        close: () => mounted.close(),
      };
    },
  };
}

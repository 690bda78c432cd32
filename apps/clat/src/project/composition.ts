/**
 * What this build of `clat` composes: the kernel host's connectors (MCP over stdio and HTTP,
 * WASM), native host tools, the resource tools over the mount (the model's `list_resources` and
 * `read_resource`), and the mount sources besides mcp.json, each an adapter's own `MountSource`:
 * plugins.json WASM plugins, installed packages and the GLM Coding Plan pack.
 * @module
 */
import { lstatSync } from 'node:fs';
import { join } from 'node:path';
import { glmPackSource } from '@clat/adapter-glm';
import {
  createMcpConnector,
  MCP_KIND,
  type McpServerConfig,
  type McpTransportProvider,
} from '@clat/adapter-mcp';
import { ERA_FILE, FileEraMemory } from '@clat/adapter-mcp-stdio/eras';
import type { PrestartedServers } from '@clat/adapter-mcp-stdio/prestart';
import {
  type Connector,
  createResourceTools,
  type HostToolsContext,
  type MountEntry,
  type MountSource,
  type Tool,
} from '@clat/kernel';
import { createNativeTools } from '@clat/native-tools';
import type { ClatHome } from '../config/clat-home.js';
import type { UserConfig } from '../config/user-config.js';
import { CLAT_VERSION } from '../version.js';
import { loginCommand } from './login-command.js';

// The WASM host, the HTTP transport (OAuth) and the package store are imported only when the
// configuration needs them: `clat tools` with one stdio server loads neither. These names repeat
// the packages' own constants (`WASM_KIND`, `PLUGINS_FILE`, `STORE_DIR`/`REGISTRY_FILE`);
// composition.test.ts pins them to the packages.
/** `@clat/adapter-wasm`'s WASM_KIND. */
export const WASM_ENTRY_KIND = 'wasm';
/** `@clat/adapter-wasm`'s PLUGINS_FILE. */
export const PLUGINS_JSON = 'plugins.json';
/** `@clat/packaging`'s STORE_DIR and REGISTRY_FILE. */
export const STORE_REGISTRY = ['plugin-store', 'registry.json'] as const;

/**
 * False only when nothing is at `file` (both sources treat a missing file as empty). One
 * synchronous lstat: a thread-pool round trip here delayed every start (read-small-file.ts).
 */
function present(file: string): boolean {
  try {
    lstatSync(file);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code !== 'ENOENT';
  }
}

export interface ServerSourceContext {
  home: ClatHome;
  env: NodeJS.ProcessEnv;
  user: UserConfig;
}

export interface Composition {
  /** The connectors the `entries` about to be mounted need (adapters load on demand). */
  connectors(context: {
    env: NodeJS.ProcessEnv;
    home: ClatHome;
    entries: readonly MountEntry[];
    /** Stdio servers already spawned for these entries, for the stdio transport to adopt. */
    prestarted?: PrestartedServers | undefined;
    /**
     * The command that logs in to the server `name`, as this run shows it (`clat mcp login`
     * with the run's `-C <dir>` and `--trust`); `clat mcp login <name>` when not given.
     */
    loginCommand?: ((name: string) => string) | undefined;
    /** Tells the person something mid-command (a browser that did not open); stderr in `clat`. */
    notice?: ((text: string) => void) | undefined;
  }): Promise<readonly Connector[]>;
  nativeTools(context: { projectRoot: string }): readonly Tool[];
  /**
   * Tools over what the plugins offer, built on the host's mount (`HostOptions.hostTools`): the
   * resource tools, `list_resources` and `read_resource`. Absent: none. `openProject` passes it
   * only when some entry is configured.
   */
  hostTools?(context: HostToolsContext): readonly Tool[];
  /**
   * The mount sources besides mcp.json, in precedence order; `openProject` collects them with
   * `collectMountSources`, mcp.json's names taken first.
   */
  sources(context: ServerSourceContext): Promise<readonly MountSource[]>;
}

/** The source `load` makes, or none when nothing is at `file` (its package is then not loaded). */
async function whenPresent(
  file: string,
  load: () => Promise<MountSource>,
): Promise<readonly MountSource[]> {
  return present(file) ? [await load()] : [];
}

/** plugins.json, then installed packages, then the GLM Coding Plan pack (it never shadows one). */
async function sourcesFor({ home, user, env }: ServerSourceContext): Promise<MountSource[]> {
  const pluginsFile = join(home.dir, PLUGINS_JSON);
  const [plugins, packages] = await Promise.all([
    whenPresent(pluginsFile, async () =>
      (await import('@clat/adapter-wasm')).pluginsJsonSource({
        file: pluginsFile,
        clatHome: home.dir,
      }),
    ),
    // The store's directory, not its registry: a store whose registry.json was lost must be
    // reported (REGISTRY_MISSING), not taken for no store, which dropped its plugins silently.
    whenPresent(join(home.dir, STORE_REGISTRY[0]), async () =>
      (await import('@clat/packaging')).packageStoreSource({ clatHome: home.dir, env }),
    ),
  ]);
  return [...plugins, ...packages, glmPackSource({ provider: user.provider })];
}

/** The MCP transports and WASM host the entries need, each package imported once, in parallel. */
async function connectorsFor(
  home: ClatHome,
  entries: readonly MountEntry[],
  prestarted: PrestartedServers | undefined,
  login: (name: string) => string,
  openUrl: (url: string) => Promise<boolean>,
): Promise<Connector[]> {
  const transports = new Set<string>();
  let wasm = false;
  for (const entry of entries) {
    if (entry.kind === MCP_KIND) transports.add((entry.config as McpServerConfig).transport);
    else if (entry.kind === WASM_ENTRY_KIND) wasm = true;
  }
  const [stdio, http, wasmHost] = await Promise.all([
    transports.has('stdio') ? import('@clat/adapter-mcp-stdio') : undefined,
    transports.has('http')
      ? Promise.all([import('@clat/adapter-mcp-http'), import('./oauth-auth.js')])
      : undefined,
    wasm ? import('@clat/adapter-wasm') : undefined,
  ]);
  const providers: McpTransportProvider[] = [];
  if (stdio !== undefined) {
    providers.push(stdio.stdioTransport({ defaultCwd: home.dir, prestarted }));
  }
  if (http !== undefined) {
    const [{ httpTransport }, { oauthClientFor }] = http;
    providers.push(httpTransport({ auth: (server) => oauthClientFor(server, home.dir, login) }));
  }
  const connectors: Connector[] = [
    createMcpConnector({
      transports: providers,
      loginCommand: (server) => login(server.name),
      openUrl,
      clientInfo: { name: 'clat', version: CLAT_VERSION },
      eras: new FileEraMemory(join(home.dir, ERA_FILE)),
    }),
  ];
  if (wasmHost !== undefined) {
    connectors.push(
      wasmHost.createWasmConnector({
        clatHome: home.dir,
        grantsFile: wasmHost.grantsPath(home.dir),
        // A command that never calls a plugin (`clat tools`, a chat that does not use it) does not
        // pay for starting its guest: its tools come from the list the guest gave last time.
        lazyStart: true,
      }),
    );
  }
  return connectors;
}

/** The adapters wired into this build of `clat`. */
export function defaultComposition(): Composition {
  return {
    connectors: ({ env, home, entries, prestarted, loginCommand: login, notice }) =>
      connectorsFor(home, entries, prestarted, login ?? loginCommand, async (url) => {
        // Only after the person accepted a URL-mode elicitation that showed this URL; loaded on
        // first use, so startup does not pay for it.
        const opened = await import('../ui/open-browser.js')
          .then(({ openBrowser }) => openBrowser(url, env))
          .catch(() => false);
        // The consent question showed the URL: without a browser the person opens it, but only
        // if told that nothing opened (the server was told "accept").
        if (!opened) notice?.('could not open a browser; open the URL above yourself');
        return opened;
      }),
    nativeTools: (context) => createNativeTools({ projectRoot: context.projectRoot }),
    hostTools: createResourceTools,
    sources: sourcesFor,
  };
}

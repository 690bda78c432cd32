/**
 * What this build of `clat` composes: the kernel host's connectors (MCP over stdio and HTTP,
 * WASM), native host tools, and the mount sources besides mcp.json: installed packages,
 * plugins.json WASM plugins and the GLM Coding Plan pack. The demo passes its own Composition.
 * @module
 */
import { lstat } from 'node:fs/promises';
import { join } from 'node:path';
import { describeGlmPack, mergeGlmPack } from '@clat/adapter-glm';
import {
  createMcpConnector,
  MCP_KIND,
  type McpServerConfig,
  type McpTransportProvider,
  mcpEntry,
} from '@clat/adapter-mcp';
import type { WasmEntryConfig } from '@clat/adapter-wasm';
import type { ConfigIssue, Connector, MountEntry, PromptContribution, Tool } from '@clat/kernel';
import { createNativeTools } from '@clat/native-tools';
import type { ClatHome } from '../config/clat-home.js';
import { ERA_FILE, EraStore } from '../config/era-store.js';
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

/** False only when nothing is at `file` (both readers treat a missing file as empty). */
async function present(file: string): Promise<boolean> {
  return lstat(file).then(
    () => true,
    (error: NodeJS.ErrnoException) => error.code !== 'ENOENT',
  );
}

export interface ServerSourceContext {
  home: ClatHome;
  env: NodeJS.ProcessEnv;
  user: UserConfig;
  /** Entries of mcp.json, which win over every other source with the same name. */
  userServers: readonly McpServerConfig[];
}

export interface ServerSources {
  /** Entries besides mcp.json, in mount order; names never repeat a user entry. */
  entries: MountEntry[];
  issues: ConfigIssue[];
  /** One line per source decision for /mcp (pack on/off, shadowed packages). */
  notes: string[];
  /** Static system prompts, contributed when their server connects. */
  prompts: PromptContribution[];
}

export interface Composition {
  /** The connectors the `entries` about to be mounted need (adapters load on demand). */
  connectors(context: {
    env: NodeJS.ProcessEnv;
    home: ClatHome;
    entries: readonly MountEntry[];
  }): Promise<readonly Connector[]>;
  nativeTools(context: { projectRoot: string }): readonly Tool[];
  extraServers(context: ServerSourceContext): Promise<ServerSources>;
}

function wasmEntry(name: string, origin: string, config: WasmEntryConfig): MountEntry {
  return { kind: WASM_ENTRY_KIND, name, origin, config };
}

async function collectSources(context: ServerSourceContext): Promise<ServerSources> {
  const { home } = context;
  const out: ServerSources = { entries: [], issues: [], notes: [], prompts: [] };
  const taken = new Set(context.userServers.map((server) => server.name));
  /** Adds `entry` unless a same-named entry came first; says whether it was added. */
  const add = (entry: MountEntry, what: string): boolean => {
    if (taken.has(entry.name)) {
      out.notes.push(
        `${what} ${JSON.stringify(entry.name)} is replaced by the same-named entry before it`,
      );
      return false;
    }
    taken.add(entry.name);
    out.entries.push(entry);
    return true;
  };

  // User entries win over installed packages: mcp.json first (taken), then plugins.json.
  const pluginsFile = join(home.dir, PLUGINS_JSON);
  const plugins = (await present(pluginsFile))
    ? await (await import('@clat/adapter-wasm')).loadPluginsJson(pluginsFile, {
        clatHome: home.dir,
      })
    : { entries: [], issues: [] };
  for (const issue of plugins.issues) {
    out.issues.push({ file: pluginsFile, path: issue.id, message: issue.message });
  }
  for (const entry of plugins.entries) {
    // The plugins.json pin and config are checked at mount (a disagreeing pin or a config that
    // misses the manifest's required keys fails there); installed packages were at install.
    add(
      wasmEntry(entry.id, 'plugins.json', {
        dirs: entry.dirs,
        validateConfig: true,
        ...(entry.path === undefined ? {} : { path: entry.path }),
        ...(entry.manifest === undefined ? {} : { manifest: entry.manifest }),
        ...(entry.sha256 === undefined ? {} : { sha256: entry.sha256 }),
        ...(entry.config === undefined ? {} : { config: entry.config }),
      }),
      'plugins.json entry',
    );
  }

  const registryFile = join(home.dir, ...STORE_REGISTRY);
  const installed = (await present(registryFile))
    ? await (await import('@clat/packaging')).installedServerEntries(home.dir)
    : undefined;
  if (installed === undefined) return addGlmPack(context, out, taken, add);
  if (installed.registryError !== undefined) {
    out.issues.push({ file: registryFile, path: '(root)', message: installed.registryError });
  }
  for (const issue of installed.issues) {
    out.issues.push({ file: registryFile, path: issue.id, message: issue.message });
  }
  for (const note of installed.notes) out.notes.push(note.message);
  // A package's static prompts come only with its own server: not when a user entry shadows it.
  const addedPackages = new Set<string>();
  const addPackage = (entry: MountEntry): void => {
    if (add(entry, 'installed package')) addedPackages.add(entry.name);
  };
  for (const server of installed.servers) addPackage(mcpEntry(server));
  for (const component of installed.components) {
    addPackage(
      wasmEntry(component.id, 'package', {
        manifest: component.dir,
        dirs: [],
        ...(component.config === undefined ? {} : { config: component.config }),
      }),
    );
  }
  for (const prompt of installed.prompts) {
    if (!addedPackages.has(prompt.server)) continue;
    out.prompts.push({
      name: `package_${prompt.server}_${prompt.name}`.replace(/[^A-Za-z0-9_]/g, '_'),
      source: { kind: 'package', id: prompt.server },
      text: prompt.system,
    });
  }

  return addGlmPack(context, out, taken, add);
}

/** The GLM Coding Plan pack's servers, after every other source (they never shadow one). */
function addGlmPack(
  context: ServerSourceContext,
  out: ServerSources,
  taken: Set<string>,
  add: (entry: MountEntry, what: string) => boolean,
): ServerSources {
  const provider = context.user.provider;
  const glm = mergeGlmPack(
    provider === undefined
      ? undefined
      : { vendor: provider.vendor, baseUrl: provider.baseUrl, apiKey: provider.apiKey },
    context.userServers,
    { reservedNames: taken },
  );
  if (provider !== undefined && glm.status.active) out.notes.push(...describeGlmPack(glm));
  for (const server of glm.servers.slice(context.userServers.length)) {
    add(mcpEntry(server), 'GLM pack server');
  }
  return out;
}

/** The MCP transports and WASM host the entries need, each package imported once, in parallel. */
async function connectorsFor(home: ClatHome, entries: readonly MountEntry[]): Promise<Connector[]> {
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
  if (stdio !== undefined) providers.push(stdio.stdioTransport({ defaultCwd: home.dir }));
  if (http !== undefined) {
    const [{ httpTransport }, { oauthClientFor }] = http;
    providers.push(httpTransport({ auth: (server) => oauthClientFor(server, home.dir) }));
  }
  const connectors: Connector[] = [
    createMcpConnector({
      transports: providers,
      loginCommand: (server) => loginCommand(server.name),
      // Only after the person accepted a URL-mode elicitation that showed this URL; loaded on
      // first use, so startup does not pay for it.
      openUrl: async (url) => (await import('../ui/open-browser.js')).openBrowser(url, process.env),
      clientInfo: { name: 'clat', version: CLAT_VERSION },
      eras: new EraStore(join(home.dir, ERA_FILE)),
    }),
  ];
  if (wasmHost !== undefined) {
    connectors.push(
      wasmHost.createWasmConnector({
        clatHome: home.dir,
        grantsFile: wasmHost.grantsPath(home.dir),
      }),
    );
  }
  return connectors;
}

/** The adapters wired into this build of `clat`. */
export function defaultComposition(): Composition {
  return {
    connectors: ({ home, entries }) => connectorsFor(home, entries),
    nativeTools: (context) => createNativeTools({ projectRoot: context.projectRoot }),
    extraServers: collectSources,
  };
}

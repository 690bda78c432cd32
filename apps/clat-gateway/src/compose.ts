/**
 * The gateway's composition: the kernel host (`createHost`) with the connectors `clat` mounts
 * (MCP over stdio and Streamable HTTP, WASM components), the native host tools and the resource
 * tools (`list_resources`, `read_resource`), fed by the sources in `sources.ts`. Trust is checked before anything is read from the project or spawned.
 * Depends on the libraries only, never on `@clat/cli`.
 * @module
 */
import { join } from 'node:path';
import { createMcpConnector } from '@clat/adapter-mcp';
import { httpTransport, storedOAuth } from '@clat/adapter-mcp-http';
import { stdioTransport } from '@clat/adapter-mcp-stdio';
import { ERA_FILE, FileEraMemory } from '@clat/adapter-mcp-stdio/eras';
import { createWasmConnector, grantsPath } from '@clat/adapter-wasm';
import {
  createHost,
  createResourceTools,
  type Host,
  type MountStatus,
  redactSecrets,
  sanitizeTerminalLine,
  shellWord,
} from '@clat/kernel';
import { createNativeTools } from '@clat/native-tools';
import { canonicalProjectRoot, requireTrusted } from './project-home.js';
import { readGatewaySources } from './sources.js';
import { GATEWAY_VERSION } from './version.js';

export interface GatewayHostOptions {
  /** `--project`, resolved against `cwd`. */
  project: string;
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** The CLAT home to read (`gatewayClatHome(env, cwd)` in the binary). */
  clatHome: string;
  /** `--trust`: serve the project for this run without a trust record. */
  trust?: boolean;
}

export interface GatewayHost {
  readonly projectRoot: string;
  /** The kernel host: registries, pipeline, run events, bridge, background mount. */
  readonly host: Host;
  /** Config problems, one line each naming file and field. */
  readonly configIssues: readonly string[];
  /** Source decisions (disabled or replaced entries), shown in `clat://status`. */
  readonly notes: readonly string[];
  /** Every mounted plugin as `/mcp` shows it (secrets and stderr tails redacted by the kernel). */
  status(): MountStatus[];
  close(): Promise<void>;
}

/**
 * The command that logs in to an entry: `clat`'s, which keeps the logins the gateway uses. It
 * names the gateway's project: a person runs it from their own shell, anywhere, and an entry of
 * the project's `.clat/mcp.json` is found only there. A name that starts with "-" goes after "--".
 */
function clatLogin(name: string, projectRoot: string): string {
  const project = `clat mcp login -C ${shellWord(projectRoot)}`;
  return `${project} ${name.startsWith('-') ? '-- ' : ''}${shellWord(name)}`;
}

/**
 * The `clat` command that gives an entry a static token instead of a login, for a server that
 * answers 401 and publishes no OAuth metadata: the gateway reads `clat`'s mcp.json, and may not
 * depend on `clat` itself for the text. Quoted for a POSIX shell; the URL is redacted and
 * sanitised, as everything the gateway shows of a configured URL.
 */
function clatStaticToken(name: string, url: string): string {
  const quote = (text: string) => `'${text.replace(/'/g, `'\\''`)}'`;
  const shown = sanitizeTerminalLine(redactSecrets(url));
  return `clat mcp add ${quote(name)} --url ${quote(shown)} --header "Authorization: Bearer <token>" --force`;
}

/** Resolves and checks trust before anything is spawned, then composes the host (not started). */
export async function openGatewayHost(options: GatewayHostOptions): Promise<GatewayHost> {
  const home = options.clatHome;
  const projectRoot = await canonicalProjectRoot(options.project, options.cwd);
  if (options.trust !== true) await requireTrusted(home, projectRoot);
  const sources = await readGatewaySources(home, projectRoot, options.env);
  const host = createHost({
    projectRoot,
    name: 'clat-gateway',
    // "restart clat-gateway" in its messages: a person restarts the gateway, not clat.
    displayName: 'clat-gateway',
    entries: sources.entries,
    staticPrompts: sources.prompts,
    connectors: [
      createMcpConnector({
        // Servers without a cwd run in the CLAT home, as under `clat`.
        transports: [
          stdioTransport({ defaultCwd: home }),
          // Logins are `clat`'s: the same token store, refreshed here as there.
          httpTransport({
            auth: storedOAuth({
              dir: join(home, 'oauth'),
              clientName: 'CLAT',
              loginHint: (server) => `run \`${clatLogin(server.name, projectRoot)}\``,
              headerHint: (server) =>
                `if it takes a token, run: ${clatStaticToken(server.name, server.url)}`,
            }),
          }),
        ],
        loginCommand: (server) => clatLogin(server.name, projectRoot),
        // The gateway mounts its servers at its start: one that needed a login waits for the
        // next start (a mounted server reads the token store again when its token is refused).
        afterLogin: 'then restart clat-gateway to mount it',
        clientInfo: { name: 'clat-gateway', version: GATEWAY_VERSION },
        // `clat`'s era memory: a server either of them found legacy starts with one spawn.
        eras: new FileEraMemory(join(home, ERA_FILE)),
      }),
      // As in `clat`: a WASM plugin's guest starts at its first call, so the first listing an
      // MCP client asks for does not wait for guests it may never call.
      createWasmConnector({ clatHome: home, grantsFile: grantsPath(home), lazyStart: true }),
    ],
    nativeTools: createNativeTools({ projectRoot }),
    // The resource tools, as under `clat` (when something is configured): an MCP client reads
    // what the mounted servers offer through the gateway's pipeline (external-read), since the
    // gateway lists none of their resources as its own.
    ...(sources.entries.length === 0 ? {} : { hostTools: createResourceTools }),
  });
  return {
    projectRoot,
    host,
    configIssues: sources.issues.map((i) => `${i.file}: ${i.path}: ${i.message}`),
    notes: sources.notes,
    status: () => host.mount.summary().servers,
    close: () => host.close(),
  };
}

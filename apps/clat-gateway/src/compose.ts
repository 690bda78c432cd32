/**
 * The gateway's composition: ~/.clat resolution, the trust gate, mcp.json (user, then the
 * project's own), native tools and the MCP servers mounted into one ToolRegistry behind the
 * kernel pipeline. Deliberately ONE file: it is the part the kernel's `createHost(...)` replaces
 * once the host moves into the kernel (issue 13); until then it mirrors how `clat` composes,
 * without depending on `@clat/cli`.
 * @module
 */
import { readFile, realpath } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { type MountedMcpServer, mountMcpServer } from '@clat/adapter-mcp';
import { HttpTransportFactory } from '@clat/adapter-mcp-http';
import { StdioTransportFactory } from '@clat/adapter-mcp-stdio';
import {
  type ConfigIssue,
  createGlobalScope,
  LIMITS,
  type McpServerConfig,
  PluginHostBridge,
  PromptRegistry,
  parseMcpConfig,
  Redactor,
  RunEventStream,
  type Scope,
  ToolPipeline,
  ToolRegistry,
  toolAllowedByEntry,
} from '@clat/kernel';
import { createNativeTools } from '@clat/native-tools';
import { GatewayError, GatewayErrorCode } from './errors.js';
import { GATEWAY_VERSION } from './version.js';

export interface GatewayHostOptions {
  /** `--project`, resolved against `cwd`. */
  project: string;
  cwd: string;
  env: NodeJS.ProcessEnv;
}

/** One server as `clat://status` shows it: redacted like `/mcp`. */
export interface GatewayServerStatus {
  name: string;
  transport: string;
  state: string;
  protocolVersion: string | undefined;
  tools: number;
  error: string | undefined;
  stderrTail: string[];
}

export interface GatewayHost {
  readonly projectRoot: string;
  readonly registry: ToolRegistry;
  readonly pipeline: ToolPipeline;
  readonly events: RunEventStream;
  readonly bridge: PluginHostBridge;
  /** mcp.json problems, one line each naming file and field. */
  readonly configIssues: readonly string[];
  /** Waits (bounded) for every server, then freezes the registries like the first `clat` run. */
  ready(): Promise<void>;
  status(): GatewayServerStatus[];
  close(): Promise<void>;
}

/** `$CLAT_HOME` or `~/.clat`, exactly as `clat` resolves it. */
function clatHomeDir(env: NodeJS.ProcessEnv, cwd: string): string {
  const override = env.CLAT_HOME?.trim();
  return override ? resolve(cwd, override) : join(homedir(), '.clat');
}

async function readOptional(file: string): Promise<string | undefined> {
  try {
    return await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

/** Reads `trust.json` the way `clat` does: the canonical root must be a key of `projects`. */
async function isTrusted(trustFile: string, root: string): Promise<boolean> {
  const text = await readOptional(trustFile);
  if (text === undefined) return false;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new GatewayError(
      GatewayErrorCode.CONFIG_INVALID,
      `${trustFile}: not valid JSON (${(error as Error).message})`,
    );
  }
  const projects = (parsed as { projects?: unknown } | null)?.projects;
  if (typeof projects !== 'object' || projects === null || Array.isArray(projects)) {
    throw new GatewayError(
      GatewayErrorCode.CONFIG_INVALID,
      `${trustFile}: projects: must be an object`,
    );
  }
  return Object.hasOwn(projects, root);
}

function formatIssue(issue: ConfigIssue): string {
  return `${issue.file}: ${issue.path}: ${issue.message}`;
}

function secretsOf(redactor: Redactor, server: McpServerConfig): void {
  if (server.transport === 'http') redactor.addHeaders(server.headers);
  else for (const value of Object.values(server.env ?? {})) redactor.add(value);
}

/** Resolves and checks trust before anything is spawned, then mounts the project's servers. */
export async function openGatewayHost(options: GatewayHostOptions): Promise<GatewayHost> {
  const home = clatHomeDir(options.env, options.cwd);
  const absolute = resolve(options.cwd, options.project);
  let projectRoot: string;
  try {
    projectRoot = await realpath(absolute);
  } catch (error) {
    throw new GatewayError(
      GatewayErrorCode.USAGE,
      `project directory ${JSON.stringify(absolute)} does not exist`,
      { cause: error },
    );
  }
  if (!(await isTrusted(join(home, 'trust.json'), projectRoot))) {
    throw new GatewayError(
      GatewayErrorCode.PROJECT_UNTRUSTED,
      `project ${projectRoot} is not trusted, so no MCP server was started; run "clat trust" in it first`,
    );
  }
  const issues: ConfigIssue[] = [];
  const servers: McpServerConfig[] = [];
  const taken = new Set<string>();
  // The user's mcp.json wins over the project's `.clat/mcp.json` for a name both define.
  for (const file of [join(home, 'mcp.json'), join(projectRoot, '.clat', 'mcp.json')]) {
    const text = await readOptional(file);
    if (text === undefined) continue;
    const parsed = parseMcpConfig(file, text, file.startsWith(home) ? 'user' : 'project');
    issues.push(...parsed.issues);
    for (const server of parsed.servers) {
      if (server.disabled === true || taken.has(server.name)) continue;
      taken.add(server.name);
      servers.push(server);
    }
  }

  const global = createGlobalScope('clat-gateway');
  const project: Scope = global.child(projectRoot);
  const registry = new ToolRegistry();
  const prompts = new PromptRegistry();
  const events = new RunEventStream();
  const pipeline = new ToolPipeline({ registry, events });
  const bridge = new PluginHostBridge({ projectRoot, pipeline });
  for (const tool of createNativeTools({ projectRoot })) registry.register(tool, project);
  const abort = new AbortController();
  project.onPreClose(() => abort.abort(new Error('the gateway is closing')), 'cancel mounts');

  const mounted = new Map<string, MountedMcpServer>();
  const failures = new Map<string, string>();
  const redactors = new Map<string, Redactor>();
  const settled = Promise.allSettled(
    servers.map(async (server) => {
      const redactor = new Redactor();
      secretsOf(redactor, server);
      redactors.set(server.name, redactor);
      const factory =
        server.transport === 'http'
          ? new HttpTransportFactory({
              url: server.url,
              ...(server.headers === undefined ? {} : { headers: server.headers }),
            })
          : new StdioTransportFactory({
              name: server.name,
              command: server.command,
              args: server.args,
              env: server.env,
              cwd: server.cwd,
              clatHome: home,
              redactor,
            });
      try {
        const handle = await mountMcpServer({
          name: server.name,
          factory,
          registry,
          prompts,
          scope: project,
          hostServices: bridge,
          projectRoot,
          clientInfo: { name: 'clat-gateway', version: GATEWAY_VERSION },
          signal: abort.signal,
          redactor,
          toolFilter: (tool) => toolAllowedByEntry(server, tool),
        });
        project.onClose(() => handle.close(), `close server ${server.name}`);
        mounted.set(server.name, handle);
      } catch (error) {
        failures.set(server.name, redactor.redact((error as Error).message));
      }
    }),
  );
  let frozen = false;

  return {
    projectRoot,
    registry,
    pipeline,
    events,
    bridge,
    configIssues: issues.map(formatIssue),
    async ready() {
      if (frozen) return;
      let timer: ReturnType<typeof setTimeout> | undefined;
      await Promise.race([
        settled,
        new Promise((done) => {
          timer = setTimeout(done, LIMITS.initialSurfaceWaitMs);
        }),
      ]);
      clearTimeout(timer);
      frozen = true;
      registry.freeze();
      prompts.freeze();
    },
    status() {
      return servers.map((server): GatewayServerStatus => {
        const redactor = redactors.get(server.name) ?? new Redactor();
        const live = mounted.get(server.name)?.status();
        const failure = failures.get(server.name);
        const tail = live?.stderrTail ?? [];
        return {
          name: server.name,
          transport: server.transport,
          state: live?.state ?? (failure === undefined ? 'connecting' : 'failed'),
          protocolVersion: live?.protocolVersion,
          tools: live?.tools ?? 0,
          error: live?.error === undefined ? failure : redactor.redact(live.error),
          stderrTail: tail.slice(-LIMITS.stderrTailLines).map((line) => redactor.redact(line)),
        };
      });
    },
    close: () => global.close(),
  };
}

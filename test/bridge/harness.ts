/**
 * Wires the real pieces for bridge e2e tests: kernel registry + pipeline + PluginHostBridge,
 * the real native tools over a temp project, and MCP servers mounted over real stdio
 * subprocesses. Only the frontend (approver, asker) and the session model are scripted.
 */
import { mkdtemp, realpath, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type McpTimeouts, type MountedMcpServer, mountMcpServer } from '@clat/adapter-mcp';
import { StdioTransportFactory } from '@clat/adapter-mcp-stdio';
import { mountWasmPlugin } from '@clat/adapter-wasm';
import {
  type BridgeRun,
  type BridgeRunOptions,
  createGlobalScope,
  type JsonObject,
  type ModelProvider,
  type ModelRequest,
  type ModelResponse,
  PluginHostBridge,
  PromptRegistry,
  type RunContext,
  type RunEvent,
  RunEventStream,
  type Scope,
  ToolPipeline,
  ToolRegistry,
  type ToolResult,
} from '@clat/kernel';
import { createNativeTools } from '@clat/native-tools';
import { groupAlive } from '@clat/process';

const here = dirname(fileURLToPath(import.meta.url));
export const FIXTURES = join(here, '..', 'fixtures', 'bridge');
const require = createRequire(import.meta.url);

/** Entry of the pinned @modelcontextprotocol/server-everything. */
export function serverEverythingEntry(): string {
  const pkg = require.resolve('@modelcontextprotocol/server-everything/package.json');
  return join(dirname(pkg), 'dist', 'index.js');
}

/** A deterministic session model: echoes the last message and records every request. */
export class ScriptedModel implements ModelProvider {
  readonly name = 'scripted';
  readonly model = 'scripted-1';
  readonly requests: ModelRequest[] = [];

  async complete(request: ModelRequest): Promise<ModelResponse> {
    this.requests.push(request);
    const last = request.messages.at(-1)?.text ?? '';
    return {
      text: `echo(${last.length}): ${last.slice(0, 40)}`,
      model: this.model,
      stopReason: 'endTurn',
      usage: { inputTokens: Math.ceil(last.length / 4), outputTokens: 7 },
    };
  }
}

export interface ServerSpec {
  name: string;
  command: string;
  args: string[];
  env?: Record<string, string>;
  /** Shorter MCP deadlines (tests of the tools/call extension). */
  timeouts?: Partial<McpTimeouts>;
  /** `legacy`: initialize straight away (a dual-era server then stays legacy). */
  eraHint?: 'legacy';
}

export function fixtureServer(
  name: string,
  file: string,
  env: Record<string, string> = {},
  timeouts?: Partial<McpTimeouts>,
): ServerSpec {
  return {
    name,
    command: process.execPath,
    args: [join(FIXTURES, file)],
    env,
    ...(timeouts === undefined ? {} : { timeouts }),
  };
}

export interface BridgeHarness {
  projectRoot: string;
  registry: ToolRegistry;
  pipeline: ToolPipeline;
  bridge: PluginHostBridge;
  events: RunEvent[];
  servers: Map<string, MountedMcpServer>;
  beginRun(options: Omit<BridgeRunOptions, 'runId' | 'signal'> & { signal?: AbortSignal }): {
    run: BridgeRun;
    context: RunContext;
  };
  /** Calls a registered tool through the pipeline in the given run. */
  call(tool: string, args: JsonObject, context: RunContext): Promise<ToolResult>;
  /** Structured output of an MCP fixture tool call (the fixture echoes it as JSON text). */
  callJson<T = Record<string, unknown>>(
    tool: string,
    args: JsonObject,
    context: RunContext,
  ): Promise<T>;
  close(): Promise<void>;
}

let runs = 0;

export interface WasmSpec {
  name: string;
  componentPath: string;
}

export async function createBridgeHarness(
  specs: ServerSpec[],
  options: {
    setupProject?: (root: string) => Promise<void>;
    wasm?: WasmSpec[];
    /** Records the URLs a consented URL-mode elicitation opens. */
    openUrl?: (url: string) => Promise<boolean>;
  } = {},
): Promise<BridgeHarness> {
  const projectRoot = await realpath(await mkdtemp(join(tmpdir(), 'clat-bridge-project-')));
  const clatHome = await realpath(await mkdtemp(join(tmpdir(), 'clat-bridge-home-')));
  await options.setupProject?.(projectRoot);
  const registry = new ToolRegistry();
  const stream = new RunEventStream();
  const events: RunEvent[] = [];
  stream.on((event) => events.push(event));
  const pipeline = new ToolPipeline({ registry, events: stream });
  const bridge = new PluginHostBridge({ projectRoot, pipeline });
  const global = createGlobalScope('bridge-e2e');
  const scope: Scope = global.child('project');
  for (const tool of createNativeTools({ projectRoot })) {
    registry.register(tool, scope);
  }
  const factories: StdioTransportFactory[] = [];
  const servers = new Map<string, MountedMcpServer>();
  await Promise.all(
    specs.map(async (spec) => {
      const factory = new StdioTransportFactory({
        name: spec.name,
        command: spec.command,
        args: spec.args,
        env: spec.env ?? {},
        defaultCwd: clatHome,
      });
      factories.push(factory);
      const mounted = await mountMcpServer({
        name: spec.name,
        factory,
        registry,
        prompts: new PromptRegistry(),
        scope: scope.pluginScope(spec.name),
        hostServices: bridge,
        projectRoot,
        timeouts: spec.timeouts,
        eraHint: spec.eraHint,
        openUrl: options.openUrl,
      });
      servers.set(spec.name, mounted);
    }),
  );
  for (const plugin of options.wasm ?? []) {
    const mounted = await mountWasmPlugin({
      name: plugin.name,
      componentPath: plugin.componentPath,
      registry,
      scope: scope.pluginScope(plugin.name),
      hostServices: bridge,
      projectRoot,
      clatHome,
    });
    const status = mounted.status();
    if (status.state !== 'connected') {
      throw new Error(`WASM plugin ${plugin.name} did not load: ${status.failure}`);
    }
  }
  const call = (tool: string, args: JsonObject, context: RunContext) =>
    pipeline.call(tool, args, context);
  return {
    projectRoot,
    registry,
    pipeline,
    bridge,
    events,
    servers,
    beginRun(runOptions) {
      const controller = new AbortController();
      const signal = runOptions.signal ?? controller.signal;
      const runId = `run-${++runs}`;
      const run = bridge.beginRun({ ...runOptions, runId, signal });
      const context: RunContext = {
        runId,
        mode: runOptions.mode,
        signal,
        ...(runOptions.approver === undefined ? {} : { approver: runOptions.approver }),
        ...(runOptions.asker === undefined ? {} : { asker: runOptions.asker }),
      };
      return { run, context };
    },
    call,
    async callJson(tool, args, context) {
      const result = await call(tool, args, context);
      if (result.isError === true) throw new Error(`${tool} failed: ${result.content}`);
      return JSON.parse(result.content) as never;
    },
    async close() {
      bridge.endRun();
      await global.close();
      const leftovers = factories.flatMap((f) => f.spawnedPids).filter((pid) => groupAlive(pid));
      await rm(projectRoot, { recursive: true, force: true });
      await rm(clatHome, { recursive: true, force: true });
      if (leftovers.length > 0)
        throw new Error(`server process groups left behind: ${leftovers.join(', ')}`);
    },
  };
}

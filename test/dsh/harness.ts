/**
 * Wires CLAT's real host for DSH e2e tests: kernel ToolRegistry + PromptRegistry + ToolPipeline +
 * PluginHostBridge, the real native tools over a temp project, and DSH plugin servers mounted
 * through @clat/adapter-mcp over @clat/adapter-mcp-stdio subprocesses. Only the frontend
 * (approver, asker) and the session model are scripted.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, realpath, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { type MountedMcpServer, mountMcpServer } from '@clat/adapter-mcp';
import { StdioTransportFactory } from '@clat/adapter-mcp-stdio';
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
  RunEventStream,
  ToolPipeline,
  ToolRegistry,
  type ToolResult,
} from '@clat/kernel';
import { createNativeTools } from '@clat/native-tools';
import { groupAlive } from '@clat/process';

const here = dirname(fileURLToPath(import.meta.url));
export const REPO = resolve(here, '..', '..');
export const DSH_FIXTURES = join(REPO, 'test', 'fixtures', 'dsh');
const require = createRequire(import.meta.url);

/** The built `clat-dsh` bin of @clat/adapter-dsh. */
export function clatDshBin(): string {
  return join(dirname(require.resolve('@clat/adapter-dsh/package.json')), 'bin', 'clat-dsh.js');
}

const run = promisify(execFile);

/** Runs `clat-dsh …` as a real process; returns exit code and output. */
export async function clatDsh(
  args: string[],
  options: { cwd?: string; env?: Record<string, string> } = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [clatDshBin(), ...args], {
      cwd: options.cwd ?? REPO,
      env: { ...process.env, ...options.env },
      timeout: 60_000,
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    return {
      code: typeof failed.code === 'number' ? failed.code : -1,
      stdout: failed.stdout ?? '',
      stderr: failed.stderr ?? '',
    };
  }
}

/** A deterministic session model that records every request. */
export class ScriptedModel implements ModelProvider {
  readonly name = 'scripted';
  readonly model = 'scripted-1';
  readonly requests: ModelRequest[] = [];
  readonly #reply: (request: ModelRequest) => string;

  constructor(reply: (request: ModelRequest) => string = () => 'scripted answer [1]') {
    this.#reply = reply;
  }

  async complete(request: ModelRequest): Promise<ModelResponse> {
    this.requests.push(request);
    return {
      text: this.#reply(request),
      model: this.model,
      stopReason: 'endTurn',
      usage: { inputTokens: 10, outputTokens: 5 },
    };
  }
}

export interface DshServerSpec {
  name: string;
  command: string;
  args?: string[];
  env?: Record<string, string>;
  cwd?: string;
}

export interface DshHarness {
  projectRoot: string;
  registry: ToolRegistry;
  prompts: PromptRegistry;
  pipeline: ToolPipeline;
  bridge: PluginHostBridge;
  servers: Map<string, MountedMcpServer>;
  factories: Map<string, StdioTransportFactory>;
  beginRun(options: Omit<BridgeRunOptions, 'runId' | 'signal'>): {
    run: BridgeRun;
    context: RunContext;
  };
  call(tool: string, args: JsonObject, context: RunContext): Promise<ToolResult>;
  close(): Promise<void>;
}

let runs = 0;

export async function createDshHarness(
  specs: DshServerSpec[],
  options: { setupProject?: (root: string) => Promise<void> } = {},
): Promise<DshHarness> {
  const projectRoot = await realpath(await mkdtemp(join(tmpdir(), 'clat-dsh-project-')));
  const clatHome = await realpath(await mkdtemp(join(tmpdir(), 'clat-dsh-home-')));
  await options.setupProject?.(projectRoot);
  const registry = new ToolRegistry();
  const prompts = new PromptRegistry();
  const pipeline = new ToolPipeline({ registry, events: new RunEventStream() });
  const bridge = new PluginHostBridge({ projectRoot, pipeline });
  const global = createGlobalScope('dsh-e2e');
  const scope = global.child('project');
  for (const tool of createNativeTools({ projectRoot })) {
    registry.register(tool, scope);
  }
  const servers = new Map<string, MountedMcpServer>();
  const factories = new Map<string, StdioTransportFactory>();
  await Promise.all(
    specs.map(async (spec) => {
      const factory = new StdioTransportFactory({
        name: spec.name,
        command: spec.command,
        args: spec.args ?? [],
        env: spec.env ?? {},
        defaultCwd: clatHome,
        ...(spec.cwd === undefined ? {} : { cwd: spec.cwd }),
      });
      factories.set(spec.name, factory);
      servers.set(
        spec.name,
        await mountMcpServer({
          name: spec.name,
          factory,
          registry,
          prompts,
          scope,
          hostServices: bridge,
          projectRoot,
        }),
      );
    }),
  );
  return {
    projectRoot,
    registry,
    prompts,
    pipeline,
    bridge,
    servers,
    factories,
    beginRun(runOptions) {
      const runId = `dsh-run-${++runs}`;
      const signal = new AbortController().signal;
      const bridgeRun = bridge.beginRun({ ...runOptions, runId, signal });
      const context: RunContext = {
        runId,
        mode: runOptions.mode,
        signal,
        ...(runOptions.approver === undefined ? {} : { approver: runOptions.approver }),
        ...(runOptions.asker === undefined ? {} : { asker: runOptions.asker }),
      };
      return { run: bridgeRun, context };
    },
    call: (tool, args, context) => pipeline.call(tool, args, context),
    async close() {
      bridge.endRun();
      await global.close();
      const pids = [...factories.values()].flatMap((factory) => factory.spawnedPids);
      const leftovers = pids.filter((pid) => groupAlive(pid));
      await rm(projectRoot, { recursive: true, force: true });
      await rm(clatHome, { recursive: true, force: true });
      if (leftovers.length > 0)
        throw new Error(`DSH server process groups left behind: ${leftovers.join(', ')}`);
    },
  };
}

import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { createWasmConnector, pluginsJsonSource } from '@clat/adapter-wasm';
import {
  type BridgeRun,
  createGlobalScope,
  type ModelProvider,
  type ModelRequest,
  type ModelResponse,
  type MountStatus,
  type PermissionMode,
  PluginHostBridge,
  PluginMount,
  PromptRegistry,
  Redactor,
  RunEventStream,
  ToolPipeline,
  ToolRegistry,
} from '@clat/kernel';
import type { ScriptedApprover } from '@clat/kernel/testing';

const require = createRequire(import.meta.url);

/** Built guests of the example packages (built by `pnpm build`). */
export const GUESTS = {
  summarize: require.resolve('@clat-examples/wasm-summarize/plugin.wasm'),
  summarizeManifest: require.resolve('@clat-examples/wasm-summarize/clat-plugin.json'),
  faults: require.resolve('@clat-examples/wasm-faults/faults.wasm'),
  faultsHttp: require.resolve('@clat-examples/wasm-faults/faults-http.wasm'),
};

export const README = '# Demo project\n\nIt has one file.\n';

/** The session model stand-in: answers with the last message and records requests. */
export class EchoModel implements ModelProvider {
  readonly name = 'test-provider';
  readonly model = 'echo-1';
  readonly requests: ModelRequest[] = [];

  async complete(request: ModelRequest): Promise<ModelResponse> {
    this.requests.push(request);
    const last = request.messages.at(-1)?.text ?? '';
    return {
      text: `echo: ${last.slice(0, 40)}`,
      model: this.model,
      stopReason: 'endTurn',
      usage: { inputTokens: 1, outputTokens: 1 },
    };
  }
}

/**
 * One compiled-module cache for every world of a test process: each digest is transpiled once.
 * Per test file, so parallel files never race on one entry.
 */
export const SHARED_CACHE = mkdtempSync(join(tmpdir(), 'clat-wasm-e2e-cache-'));

/** Call from a file-level afterAll. */
export function removeSharedCache(): void {
  rmSync(SHARED_CACHE, { recursive: true, force: true });
  // The manifest key sits next to the cache directory, never inside it.
  rmSync(`${SHARED_CACHE}.key`, { force: true });
}

/** A kernel world around a temporary project (with a README) and CLAT home. */
export function createWorld() {
  const root = mkdtempSync(join(tmpdir(), 'clat-wasm-e2e-'));
  const projectRoot = join(root, 'project');
  const clatHome = join(root, 'home');
  mkdirSync(projectRoot, { recursive: true });
  mkdirSync(clatHome, { recursive: true });
  writeFileSync(join(projectRoot, 'README.md'), README);
  const registry = new ToolRegistry();
  const events = new RunEventStream();
  const pipeline = new ToolPipeline({ registry, events });
  const bridge = new PluginHostBridge({ projectRoot, pipeline });
  const global = createGlobalScope('e2e');
  const scope = global.child('project');
  const model = new EchoModel();
  // A real native read_file over the project, for host.call-tool.
  registry.register(
    {
      definition: {
        name: 'read_file',
        description: 'Reads a project file',
        inputSchema: { type: 'object' },
        effect: 'read',
        source: { kind: 'native', id: '' },
      },
      async invoke(args) {
        const path = resolve(projectRoot, String(args.path));
        if (relative(projectRoot, path).startsWith('..')) {
          return { content: 'outside project', isError: true };
        }
        const content = readFileSync(path, 'utf8');
        return { content, structured: { path: String(args.path), content } };
      },
    },
    global,
  );
  let active: BridgeRun | undefined;
  let runs = 0;
  return {
    root,
    projectRoot,
    clatHome,
    cacheDir: SHARED_CACHE,
    registry,
    events,
    pipeline,
    bridge,
    scope,
    model,
    /** Starts a run (ending any previous one); returns its context for pipeline calls. */
    run(
      options: { mode?: PermissionMode; approver?: ScriptedApprover; signal?: AbortSignal } = {},
    ) {
      active?.end();
      const runId = `run-${++runs}`;
      const signal = options.signal ?? new AbortController().signal;
      const mode = options.mode ?? 'project-write';
      active = bridge.beginRun({
        runId,
        mode,
        signal,
        model,
        ...(options.approver === undefined ? {} : { approver: options.approver }),
      });
      return {
        runId,
        mode,
        signal,
        ...(options.approver === undefined ? {} : { approver: options.approver }),
      };
    },
    /**
     * Mounts `<clatHome>/plugins.json` the way a host does (its source, the WASM connector, the
     * host's mount with one redactor) into this world; resolves when every entry settled.
     */
    async mountPluginsJson() {
      const collected = await pluginsJsonSource({
        file: join(clatHome, 'plugins.json'),
        clatHome,
      }).collect({ taken: new Set() });
      const mount = new PluginMount({
        entries: collected.entries,
        connectors: [
          createWasmConnector({
            clatHome,
            grantsFile: join(clatHome, 'plugin-grants.json'),
            cacheDir: SHARED_CACHE,
          }),
        ],
        registry,
        prompts: new PromptRegistry(),
        scope,
        hostServices: bridge,
        projectRoot,
        redactor: new Redactor(),
      });
      await mount.start();
      return {
        issues: collected.issues,
        status: (name: string): MountStatus | undefined =>
          mount.summary().servers.find((server) => server.name === name),
      };
    },
    endRun() {
      active?.end();
      active = undefined;
    },
    async dispose() {
      active?.end();
      await global.close();
      rmSync(root, { recursive: true, force: true });
    },
  };
}

/**
 * One trusted project, composed: the global and trusted-project scopes, the tool and prompt
 * registries, the pipeline and run events, the PluginHostBridge and the background server mount.
 * Runs are opened one at a time; servers are shared across runs and closed with the project.
 * @module
 */
import {
  type Approver,
  type BridgeRun,
  CancelToken,
  createGlobalScope,
  type ModelProvider,
  type PermissionMode,
  PluginHostBridge,
  type PromptContribution,
  PromptRegistry,
  Redactor,
  type RunContext,
  RunEventStream,
  type Scope,
  type Tool,
  ToolPipeline,
  ToolRegistry,
  type UserAsker,
} from '@clat/kernel';
import type { ClatHome } from '../config/clat-home.js';
import { ProjectMount } from './project-mount.js';
import { addEntrySecrets } from './secret-env.js';
import type { MountEntry, ServerConnector } from './server-connector.js';

export interface ProjectSessionOptions {
  home: ClatHome;
  /** Canonical, trusted project root. */
  projectRoot: string;
  servers: readonly MountEntry[];
  connectors: readonly ServerConnector[];
  /** Static system prompts of installed packages, registered when their server connects. */
  staticPrompts?: readonly PromptContribution[];
  /** Native host tools, registered before any server so a server can never shadow them. */
  nativeTools?: (context: NativeToolContext) => readonly Tool[];
}

/** What native tools get from the session; the run comes with each call (`ctx.run`). */
export interface NativeToolContext {
  projectRoot: string;
}

export interface RunOptions {
  mode: PermissionMode;
  approver?: Approver;
  asker?: UserAsker;
  model?: ModelProvider;
  /** Wait of the first run for the initial surface (defaults to the kernel limit). */
  initialWaitMs?: number;
  history?: () => readonly unknown[];
}

/** An open run: its pipeline context, its cancel token (Esc) and `end()`. */
export interface ActiveRun {
  readonly context: RunContext;
  readonly token: CancelToken;
  readonly bridgeRun: BridgeRun;
  end(): Promise<void>;
}

let nextRun = 1;

export class ProjectSession {
  readonly home: ClatHome;
  readonly projectRoot: string;
  readonly global: Scope;
  readonly project: Scope;
  readonly registry = new ToolRegistry();
  readonly prompts = new PromptRegistry();
  readonly events = new RunEventStream();
  readonly pipeline: ToolPipeline;
  readonly bridge: PluginHostBridge;
  readonly mount: ProjectMount;
  readonly redactor = new Redactor();

  constructor(options: ProjectSessionOptions) {
    this.home = options.home;
    this.projectRoot = options.projectRoot;
    this.global = createGlobalScope('clat');
    this.project = this.global.child(options.projectRoot);
    this.pipeline = new ToolPipeline({ registry: this.registry, events: this.events });
    this.bridge = new PluginHostBridge({
      projectRoot: options.projectRoot,
      pipeline: this.pipeline,
    });
    for (const server of options.servers) addEntrySecrets(this.redactor, server);
    const native = options.nativeTools?.({ projectRoot: options.projectRoot });
    for (const tool of native ?? []) this.registry.register(tool, this.project);
    this.mount = new ProjectMount({
      servers: options.servers,
      connectors: options.connectors,
      registry: this.registry,
      prompts: this.prompts,
      scope: this.project,
      hostServices: this.bridge,
      projectRoot: options.projectRoot,
      clatHome: options.home.dir,
      redactor: this.redactor,
      staticPrompts: options.staticPrompts ?? [],
    });
  }

  /** Starts connecting every server in the background; returns at once. */
  start(): void {
    void this.mount.start();
  }

  /**
   * Opens a run: the first one waits for the initial surface and freezes the registries. The
   * token is the run's cancellation (Esc in the REPL, SIGINT in exec).
   */
  async beginRun(options: RunOptions): Promise<ActiveRun> {
    await this.mount.freezeForFirstRun(options.initialWaitMs);
    const runId = `run-${nextRun++}`;
    const scope = this.project.child(runId);
    const token = new CancelToken();
    const bridgeRun = this.bridge.beginRun({
      runId,
      mode: options.mode,
      signal: token.signal,
      ...(options.approver === undefined ? {} : { approver: options.approver }),
      ...(options.asker === undefined ? {} : { asker: options.asker }),
      ...(options.model === undefined ? {} : { model: options.model }),
      ...(options.history === undefined ? {} : { history: options.history }),
    });
    const context: RunContext = {
      runId,
      mode: options.mode,
      signal: token.signal,
      ...(options.approver === undefined ? {} : { approver: options.approver }),
      ...(options.asker === undefined ? {} : { asker: options.asker }),
    };
    this.events.emit({ type: 'run.started', runId, at: Date.now(), mode: options.mode });
    let ended = false;
    return {
      context,
      token,
      bridgeRun,
      end: async () => {
        if (ended) return;
        ended = true;
        this.events.emit({
          type: 'run.ended',
          runId,
          at: Date.now(),
          reason: token.cancelled ? 'cancelled' : 'completed',
        });
        bridgeRun.end();
        token.dispose();
        await scope.close();
      },
    };
  }

  /** Closes the project scope (servers, leases) and the global scope. Idempotent. */
  async close(): Promise<void> {
    await this.global.close();
  }
}

/**
 * The host: one trusted project, composed. The global and trusted-project scopes, the tool and
 * prompt registries, the pipeline and run events, the PluginHostBridge and the background mount
 * of every configured entry through the connectors it is given. Runs are opened one at a time;
 * plugins are shared across runs and closed with the project.
 * @module
 */
import type { BridgeRun } from '../bridge/bridge-run.js';
import { PluginHostBridge } from '../bridge/plugin-host-bridge.js';
import { CancelToken } from '../cancel.js';
import { isPermissionMode, PERMISSION_MODES, type PermissionMode } from '../effects.js';
import { KernelError, KernelErrorCode } from '../errors.js';
import { RunEventStream } from '../events.js';
import { type RunContext, ToolPipeline } from '../pipeline.js';
import type { Approver, ModelProvider, UserAsker } from '../ports.js';
import { type PromptContribution, PromptRegistry } from '../prompt-registry.js';
import { Redactor } from '../redact.js';
import { createGlobalScope, type Scope, type ScopeOptions } from '../scope.js';
import { type Tool, ToolRegistry } from '../tool-registry.js';
import type { Connector, MountEntry } from './connector.js';
import { DEFAULT_DISPLAY_NAME, describeEntry, PluginMount } from './plugin-mount.js';
import type { HostToolsContext } from './resource-tools.js';

export interface HostOptions {
  /** Canonical, trusted project root. */
  projectRoot: string;
  /** How each entry kind mounts (first connector of a kind wins). */
  connectors: readonly Connector[];
  /** What to mount, in order; a kind without a connector fails only its entries. */
  entries?: readonly MountEntry[];
  /** Native host tools, registered before any plugin so no plugin can shadow them. */
  nativeTools?: readonly Tool[];
  /**
   * Host tools built on the mount, e.g. `createResourceTools` (the model's `list_resources` and
   * `read_resource`): called once when the host is created and registered after the native
   * tools, before any plugin. Opt-in: none when absent (a distribution may leave them out when
   * nothing is configured, since no plugin could then offer a resource).
   */
  hostTools?: (context: HostToolsContext) => readonly Tool[];
  /** Static system prompts, registered with the plugin named by `source.id` when it connects. */
  staticPrompts?: readonly PromptContribution[];
  /** The session model of runs that name none (sampling; the agent loop). */
  provider?: ModelProvider;
  /** How a person configures a model, added to sampling's refusal in a run without one. */
  noModelHint?: string;
  /** The approver of runs that name none; absent means headless (`ask` fails closed). */
  approver?: Approver;
  /** The question frontend of runs that name none; absent means headless. */
  asker?: UserAsker;
  /** Name of the global scope (default `clat`). */
  name?: string;
  /**
   * What the host's messages call the program a person restarts ("restart CLAT after fixing
   * it"): a distribution's own name (default `CLAT`). Connectors get it as `hostName`.
   */
  displayName?: string;
  /**
   * Called with what a `host.events` listener threw (the stream goes on to the next listener).
   * Default: ignored, so a distribution that wants to see its own listener bugs passes one.
   */
  onListenerError?: (error: unknown) => void;
  scopeOptions?: ScopeOptions;
}

export interface HostRunOptions {
  mode: PermissionMode;
  approver?: Approver;
  asker?: UserAsker;
  model?: ModelProvider;
  /** Wait of the first run for the initial surface (defaults to the kernel limit). */
  initialWaitMs?: number;
  /**
   * Cancels the run. While the first run still waits for the initial surface, `beginRun`
   * rejects with CANCELLED at once and the registries stay open (the person pressed Esc before
   * anything ran); afterwards it cancels the run as `token.cancel` does.
   */
  signal?: AbortSignal;
  history?: () => readonly unknown[];
}

/**
 * An open run: its pipeline context, its cancel token (Esc) and `end()` (idempotent). Ending a
 * run cancels what is still running in it and refuses later calls with its context.
 */
export interface HostRun {
  readonly context: RunContext;
  readonly token: CancelToken;
  readonly bridgeRun: BridgeRun;
  end(): Promise<void>;
  [Symbol.asyncDispose](): Promise<void>;
}

export interface Host {
  readonly projectRoot: string;
  readonly global: Scope;
  readonly project: Scope;
  readonly registry: ToolRegistry;
  readonly prompts: PromptRegistry;
  readonly events: RunEventStream;
  readonly pipeline: ToolPipeline;
  readonly bridge: PluginHostBridge;
  readonly mount: PluginMount;
  readonly redactor: Redactor;
  /** Starts mounting every entry in the background; returns at once. */
  start(): void;
  /**
   * Opens a run: the first one waits for the initial surface and freezes the registries. The
   * token is the run's cancellation (Esc in a REPL, SIGINT headless).
   */
  beginRun(options: HostRunOptions): Promise<HostRun>;
  /** Ends every open run, then closes the project scope (plugins, leases) and the global scope. Idempotent. */
  close(): Promise<void>;
  [Symbol.asyncDispose](): Promise<void>;
}

let nextRun = 1;

/** Why an ended run's calls stop: `tool x was cancelled: the run ended`. */
const RUN_ENDED = 'the run ended';

/** Composes a host for one trusted project; nothing is spawned until `start()`. */
export function createHost(options: HostOptions): Host {
  const { projectRoot } = options;
  const global = createGlobalScope(options.name ?? 'clat', options.scopeOptions);
  const project = global.child(projectRoot);
  const registry = new ToolRegistry();
  const prompts = new PromptRegistry();
  const events = new RunEventStream(
    options.onListenerError === undefined ? {} : { onListenerError: options.onListenerError },
  );
  const pipeline = new ToolPipeline({ registry, events });
  const bridge = new PluginHostBridge({
    projectRoot,
    pipeline,
    ...(options.noModelHint === undefined ? {} : { noModelHint: options.noModelHint }),
  });
  const redactor = new Redactor();
  const entries = options.entries ?? [];
  for (const entry of entries) {
    const connector = options.connectors.find((c) => c.kind === entry.kind);
    for (const secret of describeEntry(entry, connector).secrets ?? []) redactor.add(secret);
  }
  for (const tool of options.nativeTools ?? []) registry.register(tool, project);
  const mount = new PluginMount({
    entries,
    connectors: options.connectors,
    registry,
    prompts,
    scope: project,
    hostServices: bridge,
    projectRoot,
    redactor,
    staticPrompts: options.staticPrompts ?? [],
    displayName: options.displayName ?? DEFAULT_DISPLAY_NAME,
  });
  for (const tool of options.hostTools?.({ mount }) ?? []) registry.register(tool, project);

  const open = new Set<() => Promise<void>>();
  const beginRun = async (run: HostRunOptions): Promise<HostRun> => {
    // Checked here: a mode from a config file or a plain-JS caller would otherwise fail every
    // call with a TypeError from the mode table.
    if (!isPermissionMode(run.mode)) {
      throw new KernelError(
        KernelErrorCode.CONFIG_INVALID,
        `permission mode ${JSON.stringify(run.mode)} is not one of ${PERMISSION_MODES.join(', ')}`,
      );
    }
    await mount.freezeForFirstRun(run.initialWaitMs, run.signal);
    const runId = `run-${nextRun++}`;
    const scope = project.child(runId);
    const token = new CancelToken(run.signal);
    const approver = run.approver ?? options.approver;
    const asker = run.asker ?? options.asker;
    const model = run.model ?? options.provider;
    const bridgeRun = bridge.beginRun({
      runId,
      mode: run.mode,
      signal: token.signal,
      ...(approver === undefined ? {} : { approver }),
      ...(asker === undefined ? {} : { asker }),
      ...(model === undefined ? {} : { model }),
      ...(run.history === undefined ? {} : { history: run.history }),
    });
    const context: RunContext = {
      runId,
      mode: run.mode,
      signal: token.signal,
      ...(approver === undefined ? {} : { approver }),
      ...(asker === undefined ? {} : { asker }),
    };
    events.emit({ type: 'run.started', runId, at: Date.now(), mode: run.mode });
    let ended = false;
    const end = async (): Promise<void> => {
      if (ended) return;
      ended = true;
      open.delete(end);
      const reason = token.cancelled ? 'cancelled' : 'completed';
      // A call still running stops, and the context refuses later calls: the run is over.
      token.cancel(RUN_ENDED);
      events.emit({ type: 'run.ended', runId, at: Date.now(), reason });
      bridgeRun.end();
      token.dispose();
      await scope.close();
    };
    open.add(end);
    return { context, token, bridgeRun, end, [Symbol.asyncDispose]: end };
  };

  const close = async () => {
    // Each open run ends first, so the event stream says so and its calls stop.
    for (const end of [...open]) await end();
    await global.close();
  };
  return {
    projectRoot,
    global,
    project,
    registry,
    prompts,
    events,
    pipeline,
    bridge,
    mount,
    redactor,
    start: () => {
      void mount.start();
    },
    beginRun,
    close,
    [Symbol.asyncDispose]: close,
  };
}

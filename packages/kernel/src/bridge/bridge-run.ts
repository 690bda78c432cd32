/**
 * The run a PluginHostBridge serves: what a caller passes to begin it, the handle it gets back,
 * and the bridge's own state of it (token, sampling budget, form count).
 * @module
 */
import { CancelToken, onAbort } from '../cancel.js';
import type { HostCaller } from '../contract/host-services.js';
import type { PermissionMode } from '../effects.js';
import type { Approver, ModelProvider, UserAsker } from '../ports.js';
import type { ElicitationRules } from './elicitation-flow.js';
import type { SamplingBudget, SamplingUsage } from './sampling-gates.js';

export interface BridgeRunOptions {
  runId: string;
  mode: PermissionMode;
  /** The run's cancel signal. */
  signal: AbortSignal;
  /** Absent when headless: every `ask` then fails closed. */
  approver?: Approver;
  /** Absent when headless: elicitation then fails with ELICITATION_NO_FRONTEND. */
  asker?: UserAsker;
  /** The active session model; absent means sampling is unavailable. */
  model?: ModelProvider;
  sessionId?: string | null;
  /** The run's conversation so far, oldest first; read on every snapshot. */
  history?: () => readonly unknown[];
}

/** What can change while a run is active; each change pushes a fresh context snapshot. */
export interface BridgeRunUpdate {
  mode?: PermissionMode;
  sessionId?: string | null;
  model?: ModelProvider;
}

/** The caller's handle on its run. `end()` is idempotent. */
export interface BridgeRun {
  readonly runId: string;
  readonly epoch: number;
  /** True until `end()` (or the bridge's `endRun`). */
  readonly active: boolean;
  /** Sampling spend of this run, kept after the run ends. */
  usage(): SamplingUsage;
  update(update: BridgeRunUpdate): void;
  end(): void;
}

/** Per-call options of `elicit` that only translators know (MCP integer/range checks…). */
export interface BridgeElicitOptions {
  rules?: ElicitationRules;
}

/** The bridge's state of the active run. */
export interface ActiveRun {
  runId: string;
  epoch: number;
  mode: PermissionMode;
  approver: Approver | undefined;
  asker: UserAsker | undefined;
  model: ModelProvider | undefined;
  sessionId: string | null;
  history: (() => readonly unknown[]) | undefined;
  /** Cancelled by the run's own signal or by `end()`, so pending waits stop at once. */
  token: CancelToken;
  budget: SamplingBudget;
  forms: number;
  ended: boolean;
}

export function callerLabel(caller: HostCaller): string {
  return `${caller.kind}:${caller.id}`;
}

/** Links a caller signal to the run token; `dispose` drops the listener. */
export function linkSignals(
  run: ActiveRun,
  signal: AbortSignal,
): { signal: AbortSignal; dispose: () => void } {
  const token = new CancelToken(run.token.signal);
  if (signal.aborted) token.cancel(signal.reason);
  const detach = onAbort(signal, () => token.cancel(signal.reason));
  return {
    signal: token.signal,
    dispose: () => {
      detach();
      token.dispose();
    },
  };
}

/**
 * The PluginHostBridge: the one semantic host behind MCP host services, WIT imports and the DSH
 * adapter. One per trusted project; it serves only the active run and re-checks the run epoch
 * and cancellation after every wait, so late answers are ignored.
 * About 500 lines: the class is one method per host service, each a few lines over the shared
 * run, epoch and budget checks; the gates themselves already live beside it (sampling-gates.ts,
 * elicitation-flow.ts, context-snapshot.ts).
 * @module
 */
import { CancelToken, cancelledError, withDeadline } from '../cancel.js';
import {
  type HostCaller,
  type HostContextSnapshot,
  type HostServices,
  isNativeHostTool,
  NATIVE_HOST_TOOLS,
} from '../contract/host-services.js';
import type {
  ElicitationForm,
  ElicitationOutcome,
  SamplingOutcome,
  SamplingRequest,
} from '../contract/plugin-contract.js';
import {
  errorMessage,
  isClatError,
  isKernelError,
  KernelError,
  KernelErrorCode,
} from '../errors.js';
import type { RunEvent, RunEventStream } from '../events.js';
import { isJsonObject } from '../json.js';
import { LIMITS } from '../limits.js';
import type { ToolPipeline } from '../pipeline.js';
import type { ModelProvider } from '../ports.js';
import {
  type ActiveRun,
  type BridgeElicitOptions,
  type BridgeRun,
  type BridgeRunOptions,
  type BridgeRunUpdate,
  callerLabel,
  linkSignals,
} from './bridge-run.js';
import { runSnapshot } from './context-snapshot.js';
import { askElicitationForm, validateElicitationForm } from './elicitation-flow.js';
import { askWholeForm } from './form-content.js';
import { approveSampling } from './sampling-approval.js';
import { checkSamplingPayload, SamplingBudget } from './sampling-gates.js';

export interface PluginHostBridgeOptions {
  /** Absolute project root, shown in context snapshots. */
  projectRoot: string;
  /** The project's tool pipeline (registry + run events). */
  pipeline: ToolPipeline;
  /**
   * What a refused sampling request adds when the run has no model: how a person configures one
   * in this host (`set "provider" in ~/.clat/config.json`). The kernel knows no settings file.
   */
  noModelHint?: string;
}

type ContextListener = (snapshot: HostContextSnapshot | null) => void;

export class PluginHostBridge implements HostServices {
  readonly projectRoot: string;
  readonly #pipeline: ToolPipeline;
  readonly #events: RunEventStream;
  readonly #noModelHint: string | undefined;
  readonly #subscribers = new Map<ContextListener, HostCaller>();
  #run: ActiveRun | undefined;
  #epoch = 0;
  #nextSampling = 1;
  #nextElicitation = 1;
  #nextHostCall = 1;

  constructor(options: PluginHostBridgeOptions) {
    this.projectRoot = options.projectRoot;
    this.#pipeline = options.pipeline;
    this.#events = options.pipeline.events;
    this.#noModelHint = options.noModelHint;
  }

  /** The id of the active run, if any. */
  get activeRunId(): string | undefined {
    return this.#run?.runId;
  }

  /** Installs the active run. Throws RUN_ALREADY_ACTIVE while another run is installed. */
  beginRun(options: BridgeRunOptions): BridgeRun {
    if (this.#run !== undefined) {
      throw new KernelError(
        KernelErrorCode.RUN_ALREADY_ACTIVE,
        `run ${JSON.stringify(this.#run.runId)} is still active; end it before starting ${JSON.stringify(options.runId)}`,
      );
    }
    const run: ActiveRun = {
      runId: options.runId,
      epoch: ++this.#epoch,
      mode: options.mode,
      approver: options.approver,
      asker: options.asker,
      model: options.model,
      sessionId: options.sessionId ?? null,
      history: options.history,
      token: new CancelToken(options.signal),
      budget: new SamplingBudget(),
      forms: 0,
      ended: false,
    };
    this.#run = run;
    this.#publish();
    return {
      runId: run.runId,
      epoch: run.epoch,
      get active() {
        return !run.ended;
      },
      usage: () => run.budget.usage(),
      update: (update) => this.#update(run, update),
      end: () => this.#end(run),
    };
  }

  /** Ends the active run if it is `run` (or any run when omitted). Idempotent. */
  endRun(run?: BridgeRun): void {
    const active = this.#run;
    if (active === undefined) return;
    if (run !== undefined && run.epoch !== active.epoch) return;
    this.#end(active);
  }

  #update(run: ActiveRun, update: BridgeRunUpdate): void {
    if (run.ended || this.#run !== run) return;
    if (update.mode !== undefined) run.mode = update.mode;
    if (update.sessionId !== undefined) run.sessionId = update.sessionId;
    if (update.model !== undefined) run.model = update.model;
    this.#publish();
  }

  #end(run: ActiveRun): void {
    if (run.ended) return;
    run.ended = true;
    run.token.cancel(
      new KernelError(KernelErrorCode.CANCELLED, `run ${JSON.stringify(run.runId)} ended`),
    );
    if (this.#run === run) {
      this.#run = undefined;
      this.#epoch++;
      this.#publish();
    }
  }

  #requireRun(caller: HostCaller, what: string): ActiveRun {
    const run = this.#run;
    if (run === undefined) {
      throw new KernelError(
        KernelErrorCode.HOST_NO_ACTIVE_RUN,
        `no active run: ${callerLabel(caller)} asked for ${what}, but CLAT host services are available only during a run`,
      );
    }
    return run;
  }

  /** After every wait: same run, same epoch, not cancelled. */
  #checkpoint(run: ActiveRun, signal: AbortSignal, what: string): void {
    if (run.ended || this.#run !== run || run.epoch !== this.#epoch) {
      throw new KernelError(
        KernelErrorCode.HOST_NO_ACTIVE_RUN,
        `run ${JSON.stringify(run.runId)} ended while ${what} was pending; the late answer was ignored`,
      );
    }
    if (signal.aborted) throw cancelledError(signal, what);
  }

  #emit(event: RunEvent): void {
    this.#events.emit(event);
  }

  #snapshot(run: ActiveRun): HostContextSnapshot {
    let history: readonly unknown[] = [];
    try {
      history = run.history?.() ?? [];
    } catch (error) {
      this.#diagnostic(
        run,
        { kind: 'host', id: 'bridge' },
        `run history could not be read: ${errorMessage(error)}`,
      );
    }
    return runSnapshot(this.projectRoot, run, history);
  }

  #diagnostic(run: ActiveRun, source: HostCaller, message: string): void {
    this.#emit({
      type: 'diagnostic',
      runId: run.runId,
      at: Date.now(),
      level: 'warn',
      source,
      message,
    });
  }

  /** Pushes the current snapshot (or null) to every subscriber, after the caller's turn. */
  #publish(): void {
    if (this.#subscribers.size === 0) return;
    const run = this.#run;
    const snapshot = run === undefined ? null : this.#snapshot(run);
    for (const [listener, caller] of this.#subscribers) this.#deliver(listener, caller, snapshot);
  }

  #deliver(
    listener: ContextListener,
    caller: HostCaller,
    snapshot: HostContextSnapshot | null,
  ): void {
    queueMicrotask(() => {
      if (!this.#subscribers.has(listener)) return;
      try {
        listener(snapshot === null ? null : structuredClone(snapshot));
      } catch (error) {
        const run = this.#run;
        if (run !== undefined) {
          this.#diagnostic(run, caller, `context subscriber failed: ${errorMessage(error)}`);
        }
      }
    });
  }

  async context(caller: HostCaller): Promise<HostContextSnapshot> {
    const run = this.#requireRun(caller, 'the host context');
    return this.#snapshot(run);
  }

  subscribeContext(caller: HostCaller, listener: ContextListener): () => void {
    this.#subscribers.set(listener, caller);
    if (this.#run !== undefined) this.#deliver(listener, caller, this.#snapshot(this.#run));
    return () => {
      this.#subscribers.delete(listener);
    };
  }

  /**
   * Runs one allowlisted native tool for a plugin, through the pipeline with the run's mode,
   * approver and cancel signal. The approver sees `<kind>:<id>:host:<tool>` and the raw
   * arguments; the tool applies the stricter plugin path fence (`requestedBy`). Returns the
   * tool's structured output (or its text). A tool-level failure throws HOST_TOOL_FAILED, or
   * the kernel code the tool reported (HOST_PATH_OUTSIDE_PROJECT).
   */
  async callTool(
    caller: HostCaller,
    name: string,
    args: unknown,
    signal: AbortSignal,
  ): Promise<unknown> {
    const run = this.#requireRun(caller, `host tool ${JSON.stringify(name)}`);
    if (!isNativeHostTool(name)) {
      throw new KernelError(
        KernelErrorCode.HOST_TOOL_NOT_ALLOWED,
        `host tool ${JSON.stringify(name)} is not callable by plugins; allowed: ${NATIVE_HOST_TOOLS.join(', ')}`,
        { data: { tool: name } },
      );
    }
    const tool = this.#pipeline.registry.get(name);
    if (tool === undefined || tool.definition.source.kind !== 'native') {
      throw new KernelError(
        KernelErrorCode.HOST_TOOL_NOT_ALLOWED,
        `host tool ${JSON.stringify(name)} is not available: no native tool of that name is registered`,
        { data: { tool: name } },
      );
    }
    if (args !== undefined && args !== null && !isJsonObject(args)) {
      throw new KernelError(
        KernelErrorCode.HOST_INVALID_REQUEST,
        `arguments of host tool ${JSON.stringify(name)} must be a JSON object`,
      );
    }
    const linked = linkSignals(run, signal);
    try {
      this.#checkpoint(run, linked.signal, `host tool ${name}`);
      const result = await this.#pipeline.call(
        name,
        args ?? {},
        {
          runId: run.runId,
          mode: run.mode,
          signal: linked.signal,
          ...(run.approver === undefined ? {} : { approver: run.approver }),
          ...(run.asker === undefined ? {} : { asker: run.asker }),
        },
        {
          callId: `clat-host-${this.#nextHostCall++}`,
          approvalName: `${callerLabel(caller)}:host:${name}`,
          requestedBy: caller,
          reason: `${callerLabel(caller)} asks to run the native ${name} tool`,
        },
      );
      this.#checkpoint(run, linked.signal, `host tool ${name}`);
      if (result.isError === true) {
        const reported = (result.structured as { error?: { code?: unknown } } | undefined)?.error
          ?.code;
        const code =
          typeof reported === 'string' && reported in KernelErrorCode
            ? (reported as KernelErrorCode)
            : KernelErrorCode.HOST_TOOL_FAILED;
        throw new KernelError(code, `host tool call ${name} failed: ${result.content}`, {
          data: { tool: name },
        });
      }
      return result.structured !== undefined ? result.structured : result.content;
    } finally {
      linked.dispose();
    }
  }

  /**
   * Serves one sampling request. Gates, in order: payload, run budget (reserved before the
   * approval and the model call, reconciled after), permission (mode table for Execute, then the
   * approver with the complete payload; Full Access skips only the dialog). The active session
   * model answers; usage is added to the run.
   */
  async createMessage(
    caller: HostCaller,
    request: SamplingRequest,
    signal: AbortSignal,
  ): Promise<SamplingOutcome> {
    const run = this.#requireRun(caller, 'sampling');
    const requestId = `sampling-${this.#nextSampling++}`;
    const base = { runId: run.runId, requestId };
    const fail = (error: unknown): never => {
      const failure = isClatError(error)
        ? error
        : new KernelError(KernelErrorCode.INTERNAL, `sampling failed: ${errorMessage(error)}`, {
            cause: error,
          });
      this.#emit({
        ...base,
        type: 'sampling.failed',
        at: Date.now(),
        error: { code: failure.code, message: failure.message },
      });
      throw failure;
    };
    const linked = linkSignals(run, signal);
    try {
      this.#checkpoint(run, linked.signal, 'sampling');
      const model = run.model;
      if (model === undefined) {
        // The server relays this text to the person: say what they can change, not the run id.
        const hint = this.#noModelHint === undefined ? '' : `; ${this.#noModelHint}`;
        return fail(
          new KernelError(
            KernelErrorCode.SAMPLING_UNAVAILABLE,
            `sampling is unavailable: no model is configured for this run${hint}`,
          ),
        );
      }
      let payload: ReturnType<typeof checkSamplingPayload>;
      try {
        payload = checkSamplingPayload(request);
      } catch (error) {
        return fail(error);
      }
      this.#emit({
        ...base,
        type: 'sampling.requested',
        at: Date.now(),
        source: caller,
        messages: payload.request.messages.length,
        chars: payload.chars,
        maxTokens: payload.maxTokens,
      });
      let reservation: ReturnType<SamplingBudget['reserve']>;
      try {
        reservation = run.budget.reserve(payload.chars, payload.maxTokens);
      } catch (error) {
        return fail(error);
      }
      try {
        await approveSampling(run, caller, requestId, payload, linked.signal, {
          emit: (event) => this.#emit(event),
          checkpoint: (what) => this.#checkpoint(run, linked.signal, what),
        });
        this.#checkpoint(run, linked.signal, 'sampling approval');
      } catch (error) {
        run.budget.release(reservation);
        return fail(error);
      }
      let response: Awaited<ReturnType<ModelProvider['complete']>>;
      try {
        response = await withDeadline(
          (deadline) =>
            model.complete(
              {
                messages: payload.request.messages.map((message) => ({ ...message })),
                maxTokens: payload.maxTokens,
                source: caller,
                ...(payload.request.systemPrompt === undefined
                  ? {}
                  : { system: payload.request.systemPrompt }),
                ...(payload.request.temperature === undefined
                  ? {}
                  : { temperature: payload.request.temperature }),
              },
              deadline,
            ),
          LIMITS.samplingProviderMs,
          `sampling by ${model.name}`,
          linked.signal,
        );
      } catch (error) {
        run.budget.abandon(reservation);
        if (isKernelError(error) && (error.code === 'CANCELLED' || error.code === 'TIMEOUT'))
          return fail(error);
        return fail(
          new KernelError(
            KernelErrorCode.SAMPLING_PROVIDER_FAILED,
            `the session model ${model.model} failed to answer: ${errorMessage(error)}`,
            { cause: error },
          ),
        );
      }
      run.budget.settle(reservation, response.usage);
      try {
        this.#checkpoint(run, linked.signal, 'sampling');
      } catch (error) {
        return fail(error);
      }
      this.#emit({
        ...base,
        type: 'sampling.completed',
        at: Date.now(),
        model: response.model,
        usage: response.usage,
      });
      return { text: response.text, model: response.model, stopReason: response.stopReason };
    } finally {
      linked.dispose();
    }
  }

  /**
   * Asks one primitive form through the run's UserAsker, field by field. Headless runs get
   * ELICITATION_NO_FRONTEND; Esc gives `cancelled`, a refusal `declined`.
   */
  async elicit(
    caller: HostCaller,
    form: ElicitationForm,
    signal: AbortSignal,
    options: BridgeElicitOptions = {},
  ): Promise<ElicitationOutcome> {
    const run = this.#requireRun(caller, 'elicitation');
    const requestId = `elicitation-${this.#nextElicitation++}`;
    const base = { runId: run.runId, requestId };
    const linked = linkSignals(run, signal);
    try {
      this.#checkpoint(run, linked.signal, 'elicitation');
      const checked = validateElicitationForm(form);
      if (run.asker === undefined) {
        throw new KernelError(
          KernelErrorCode.ELICITATION_NO_FRONTEND,
          `no interactive frontend is attached, so ${callerLabel(caller)} cannot ask the user (headless run)`,
        );
      }
      if (run.forms + 1 > LIMITS.elicitationFormsPerRun) {
        throw new KernelError(
          KernelErrorCode.LIMIT_EXCEEDED,
          `elicitation refused: this run already asked ${run.forms} of ${LIMITS.elicitationFormsPerRun} forms`,
        );
      }
      run.forms++;
      this.#emit({
        ...base,
        type: 'elicitation.requested',
        at: Date.now(),
        source: caller,
        fields: checked.fields.length,
      });
      const outcome =
        run.asker.askForm === undefined
          ? await askElicitationForm(checked, run.asker, linked.signal, {
              ...(options.rules === undefined ? {} : { rules: options.rules }),
              checkpoint: () => this.#checkpoint(run, linked.signal, 'elicitation'),
              source: caller,
            })
          : await askWholeForm(
              run.asker.askForm.bind(run.asker),
              { form: checked, rules: options.rules ?? {}, source: caller },
              linked.signal,
              () => this.#checkpoint(run, linked.signal, 'elicitation'),
            );
      const action =
        outcome.tag === 'accepted' ? 'accept' : outcome.tag === 'declined' ? 'decline' : 'cancel';
      this.#emit({ ...base, type: 'elicitation.completed', at: Date.now(), action });
      return outcome;
    } catch (error) {
      const failure = isClatError(error)
        ? error
        : new KernelError(KernelErrorCode.INTERNAL, `elicitation failed: ${errorMessage(error)}`, {
            cause: error,
          });
      this.#emit({
        ...base,
        type: 'elicitation.failed',
        at: Date.now(),
        error: { code: failure.code, message: failure.message },
      });
      throw failure;
    } finally {
      linked.dispose();
    }
  }
}

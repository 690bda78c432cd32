/**
 * JcoGuestHost: runs one plugin's guest in a worker thread and serializes calls into it. Host
 * imports are answered on the main thread (the worker parks in Atomics.wait meanwhile). Each
 * call has a time budget that counts ordinary host calls and is extended only by sampling and
 * elicitation waits (at most the spec's total extension); running past it, a cancellation, a
 * trap or an out-of-memory error terminates the worker, and the next call starts a fresh one.
 * Calls wait in a bounded queue; a cancelled waiting call settles at once. A warm call goes
 * through the instance's call slot (worker/call-slot.mjs) rather than a message round trip.
 * @module
 */
import { MessageChannel, type MessagePort, Worker } from 'node:worker_threads';
import { errorMessage, LIMITS } from '@clat/kernel';
import { type BudgetExpiry, CallBudget } from './call-budget.js';
import { CallQueue } from './call-queue.js';
import { awaitSlotResult, releaseSlotWaiters, sendSlotCall } from './call-slot-host.js';
import { WasmError, WasmErrorCode } from './errors.js';
import type {
  GuestCallOutcome,
  GuestToolDefinition,
  JcoGuestHostOptions,
  Preopen,
} from './guest-host-contract.js';
import { type CallSlot, callSlotOf, createCallSlotBuffer } from './worker/call-slot.mjs';
import {
  type GuestGlue,
  type HostRequest,
  hostErrorText,
  type ResultMessage,
  startFailedText,
  type WorkerMessage,
} from './worker-messages.js';

const DEFAULT_START_TIMEOUT_MS = 30_000;
/** Recycle once guest memory passes this share of the cap: wasm memory never shrinks. */
const MEMORY_HIGH_WATER = 0.9;
/** Upper bound on waiting for worker.terminate() before reporting anyway. */
const TERMINATE_WAIT_MS = 2_000;
/** Upper bound on waiting, at close, for a glue code cache the worker announced (a few ms). */
const CODE_CACHE_WAIT_MS = 500;
const OUT_OF_MEMORY = /out of memory/i;
const WORKER_HEAP_MB = 256;
/** Planned stops, not faults: they do not count as restarts. */
const PREOPENS_CHANGED = 'preopens changed';
const CLOSED = 'closed';

interface PendingCall {
  id: number;
  finish(outcome: GuestCallOutcome): void;
  budget: CallBudget;
  signal: AbortSignal;
}

interface Instance {
  worker: Worker;
  port: MessagePort;
  cell: Int32Array;
  slot: CallSlot;
  /** Carries a call whose name and arguments do not fit in the slot. */
  callPort: MessagePort;
  /** The last call number sent through the slot. */
  calls: number;
  /** Aborts host imports in flight when the instance dies. */
  life: AbortController;
  ready: Promise<GuestToolDefinition[]>;
  /** Rejects `ready` (a no-op once it settled). */
  failStart(error: Error): void;
  /** Set once `ready` resolved. */
  started: boolean;
  pending: PendingCall | undefined;
  dead: boolean;
}

export class JcoGuestHost {
  readonly plugin: string;
  readonly #options: JcoGuestHostOptions;
  #preopens: readonly Preopen[];
  /**
   * The verified glue, loaded from memory (the cache file may change after verification);
   * undefined while the component is being prepared. Later workers get the code cache the first
   * one made, if it made one.
   */
  #glueReady: GuestGlue | undefined;
  readonly #glue: Promise<GuestGlue>;
  #glueCodeCacheMade = false;
  /** Settles when the code cache a worker announced arrived (or its worker ended). */
  #glueCodeCacheComing: Promise<void> | undefined;
  #glueCodeCacheArrived: (() => void) | undefined;
  /** The compiled core modules, once ready (shared by every worker, restarts included). */
  #modules: Record<string, WebAssembly.Module> | undefined;
  readonly #compiling: Promise<Record<string, WebAssembly.Module>>;
  /** The memory cap the modules were compiled with; known before any instance runs guest code. */
  #memoryLimitBytes = 0;
  #instance: Instance | undefined;
  readonly #queue = new CallQueue();
  #closed = false;
  #recycled = 0;

  constructor(options: JcoGuestHostOptions) {
    this.plugin = options.plugin;
    this.#options = options;
    this.#preopens = options.preopens;
    const { component } = options;
    if (component instanceof Promise) {
      // Still being prepared: the first worker boots meanwhile and gets the glue by message.
      this.#glue = component.then((prepared) => {
        this.#memoryLimitBytes = prepared.memoryLimitBytes;
        return { source: prepared.glueSource, codeCache: prepared.glueCodeCache };
      });
      this.#compiling = component.then((prepared) => prepared.modules);
      this.#glue.then(
        (glue) => {
          this.#glueReady = glue;
        },
        () => {},
      );
    } else {
      this.#memoryLimitBytes = component.memoryLimitBytes;
      this.#glueReady = { source: component.glueSource, codeCache: component.glueCodeCache };
      this.#glue = Promise.resolve(this.#glueReady);
      this.#compiling = Promise.resolve(component.modules);
      if (!(component.modules instanceof Promise)) this.#modules = component.modules;
    }
    this.#compiling.then(
      (compiled) => {
        this.#modules = compiled;
      },
      () => {},
    );
  }

  /** Instances terminated by a fault (trap, timeout, cancellation, memory); each restarts. */
  get restarts(): number {
    return this.#recycled;
  }

  /** True while a worker is alive. */
  get running(): boolean {
    return this.#instance !== undefined && !this.#instance.dead;
  }

  get preopens(): readonly Preopen[] {
    return this.#preopens;
  }

  /** Starts an instance (if none runs) and returns the tools it lists. */
  start(): Promise<GuestToolDefinition[]> {
    return this.#queue.run(() => this.#ensure().ready);
  }

  /** Changes the preopens; the running instance is recycled so the next call sees them. */
  setPreopens(preopens: readonly Preopen[]): Promise<void> {
    return this.#queue.run(async () => {
      this.#preopens = preopens;
      const instance = this.#instance;
      if (instance !== undefined) await this.#kill(instance, PREOPENS_CHANGED);
    });
  }

  /** Calls one tool. Never rejects for guest failures: they come back as outcomes. */
  call(name: string, argsJson: string, signal: AbortSignal): Promise<GuestCallOutcome> {
    const limit = this.#options.queueLimit ?? LIMITS.wasmCallQueue;
    if (this.#queue.waitingCalls >= limit) {
      return Promise.reject(
        new WasmError(
          WasmErrorCode.WASM_QUEUE_FULL,
          `wasm plugin ${this.plugin} already has ${limit} calls waiting (the limit); call ${JSON.stringify(name)} again when they finish`,
        ),
      );
    }
    return this.#queue.run(
      async () => {
        if (this.#closed) {
          throw new WasmError(WasmErrorCode.WASM_CLOSED, `wasm plugin ${this.plugin} is closed`);
        }
        if (signal.aborted) return this.#cancelledOutcome();
        const instance = this.#ensure();
        // A warm instance is dispatched to at once, without a turn through its settled start.
        if (!instance.started) {
          await instance.ready;
          if (signal.aborted) return this.#cancelledOutcome();
        }
        return this.#dispatch(instance, name, argsJson, signal);
      },
      { counted: true, signal, onCancel: () => this.#cancelledOutcome() },
    );
  }

  /** Terminates the worker; later calls fail with WASM_CLOSED. Idempotent. */
  async close(): Promise<void> {
    this.#closed = true;
    const instance = this.#instance;
    if (instance !== undefined) {
      // The worker posts its glue code cache right after `ready`: a close soon after the start
      // (a one-shot command) would otherwise drop it, and every later process would compile.
      if (instance.pending === undefined && this.#glueCodeCacheComing !== undefined) {
        await settledWithin(this.#glueCodeCacheComing, CODE_CACHE_WAIT_MS);
      }
      instance.pending?.finish({
        kind: 'cancelled',
        message: `wasm plugin ${this.plugin} was closed during the call`,
      });
      await this.#kill(instance, CLOSED);
    }
  }

  #cancelledOutcome(): GuestCallOutcome {
    return { kind: 'cancelled', message: `call into wasm plugin ${this.plugin} was cancelled` };
  }

  #ensure(): Instance {
    if (this.#closed) {
      throw new WasmError(WasmErrorCode.WASM_CLOSED, `wasm plugin ${this.plugin} is closed`);
    }
    if (this.#instance !== undefined && !this.#instance.dead) return this.#instance;
    const instance = this.#spawn();
    this.#instance = instance;
    return instance;
  }

  #spawn(): Instance {
    const channel = new MessageChannel();
    const calls = new MessageChannel();
    const signalBuffer = new SharedArrayBuffer(4);
    const callBuffer = createCallSlotBuffer();
    const worker = new Worker(new URL('./worker/guest-worker.mjs', import.meta.url), {
      workerData: {
        // Undefined while compiling (preparing): they follow in a `modules` (`glue`) message.
        modules: this.#modules,
        glue: this.#glueReady,
        hostPort: channel.port2,
        signalBuffer,
        callBuffer,
        callPort: calls.port2,
        preopens: this.#preopens.map((preopen) => ({ ...preopen })),
        outputLimitBytes: this.#options.outputLimitBytes,
      },
      transferList: [channel.port2, calls.port2],
      // The guest worker gets no environment and never writes to the host's stdio.
      env: {},
      stdout: true,
      stderr: true,
      execArgv: [],
      // Guest memory is capped in the module itself; this bounds the glue's JS heap.
      resourceLimits: { maxOldGenerationSizeMb: WORKER_HEAP_MB },
    });
    let readyResolve!: (tools: GuestToolDefinition[]) => void;
    let readyReject!: (error: Error) => void;
    const ready = new Promise<GuestToolDefinition[]>((resolve, reject) => {
      readyResolve = resolve;
      readyReject = reject;
    });
    ready.catch(() => {});
    const instance: Instance = {
      worker,
      port: channel.port1,
      cell: new Int32Array(signalBuffer),
      slot: callSlotOf(callBuffer),
      callPort: calls.port1,
      calls: 0,
      life: new AbortController(),
      ready,
      failStart: readyReject,
      started: false,
      pending: undefined,
      dead: false,
    };
    // The start budget runs from the moment the component is prepared (a first load's transpile
    // is not the instance's start), as when the worker was spawned only then.
    let startTimer: ReturnType<typeof setTimeout> | undefined;
    const armStartTimer = () => {
      if (instance.dead || instance.started) return;
      const startTimeoutMs = this.#options.startTimeoutMs ?? DEFAULT_START_TIMEOUT_MS;
      startTimer = setTimeout(() => {
        readyReject(
          new WasmError(
            WasmErrorCode.WASM_START_FAILED,
            `wasm plugin ${this.plugin} did not start within ${startTimeoutMs} ms`,
          ),
        );
        void this.#kill(instance, 'start timeout');
      }, startTimeoutMs);
    };
    const forward = (stream: 'stdout' | 'stderr') => (chunk: Buffer) =>
      this.#options.onOutput?.(stream, chunk.toString('utf8'));
    worker.stdout.on('data', forward('stdout'));
    worker.stderr.on('data', forward('stderr'));
    worker.on('message', (message: WorkerMessage) => {
      switch (message.type) {
        case 'ready':
          clearTimeout(startTimer);
          instance.started = true;
          if (message.glueCodeCache === true && !this.#glueCodeCacheMade) {
            this.#glueCodeCacheComing = new Promise<void>((resolve) => {
              this.#glueCodeCacheArrived = resolve;
            });
          }
          readyResolve(message.tools);
          break;
        case 'start-failed':
          clearTimeout(startTimer);
          readyReject(
            new WasmError(WasmErrorCode.WASM_START_FAILED, startFailedText(this.plugin, message)),
          );
          void this.#kill(instance, 'start failed');
          break;
        case 'output':
          this.#options.onOutput?.(message.stream, message.text);
          break;
        case 'result':
          this.#onResult(instance, message);
          break;
        case 'glue-code-cache':
          this.#onGlueCodeCache(message.data);
          break;
      }
    });
    const onDeath = (reason: string) => {
      clearTimeout(startTimer);
      readyReject(
        new WasmError(
          WasmErrorCode.WASM_START_FAILED,
          `wasm plugin ${this.plugin} failed to start: ${reason}`,
        ),
      );
      const pending = instance.pending;
      if (pending !== undefined) {
        pending.finish({
          kind: OUT_OF_MEMORY.test(reason) ? 'out-of-memory' : 'trap',
          message: `wasm plugin ${this.plugin} crashed: ${reason}; the instance will be restarted`,
        });
      }
      void this.#kill(instance, reason);
    };
    worker.on('error', (error) => onDeath(errorMessage(error)));
    worker.on('exit', (code) => {
      if (!instance.dead) onDeath(`the worker exited with code ${code}`);
    });
    channel.port1.on('message', (request: HostRequest) => {
      void this.#answerHost(instance, request);
    });
    if (this.#glueReady === undefined) {
      // A failed preparation rejects `#compiling` as well, and is reported there.
      this.#glue.then(
        (glue) => {
          if (instance.dead) return;
          worker.postMessage({ type: 'glue', glue });
          armStartTimer();
        },
        () => {},
      );
    } else {
      armStartTimer();
    }
    if (this.#modules === undefined) {
      this.#compiling.then(
        (modules) => {
          if (!instance.dead) worker.postMessage({ type: 'modules', modules });
        },
        (error: unknown) => {
          clearTimeout(startTimer);
          // A compile error keeps its own code (a malformed module, a memory cap).
          readyReject(
            error instanceof WasmError
              ? error
              : new WasmError(
                  WasmErrorCode.WASM_START_FAILED,
                  `wasm plugin ${this.plugin} failed to compile: ${errorMessage(error)}`,
                  { cause: error },
                ),
          );
          void this.#kill(instance, 'compile failed');
        },
      );
    }
    return instance;
  }

  async #answerHost(instance: Instance, request: HostRequest): Promise<void> {
    const pending = instance.pending;
    // Only waits on the user or the model extend a call; every other host call counts.
    const extendsCall = request.iface === 'sampling' || request.iface === 'elicitation';
    if (extendsCall) pending?.budget.pause();
    const signal =
      pending === undefined
        ? instance.life.signal
        : AbortSignal.any([instance.life.signal, pending.signal]);
    let reply: { tag: 'ok' | 'err'; val: unknown };
    try {
      const value = await this.#options.hostImports(
        request.iface,
        request.fn,
        request.args,
        signal,
      );
      reply = { tag: 'ok', val: value };
    } catch (error) {
      reply = { tag: 'err', val: typeof error === 'string' ? error : hostErrorText(error) };
    }
    if (instance.dead) return;
    instance.port.postMessage(reply);
    Atomics.store(instance.cell, 0, 1);
    Atomics.notify(instance.cell, 0);
    if (extendsCall && instance.pending === pending) pending?.budget.resume();
  }

  #dispatch(
    instance: Instance,
    name: string,
    argsJson: string,
    signal: AbortSignal,
  ): Promise<GuestCallOutcome> {
    const timeoutMs = this.#options.callTimeoutMs ?? LIMITS.toolCallMs;
    return new Promise<GuestCallOutcome>((resolve) => {
      // Call numbers are per instance (the slot's sequence), never 0: a fresh slot's value.
      const id = (instance.calls % 0x7fff_fffe) + 1;
      instance.calls = id;
      let done = false;
      const finish = (outcome: GuestCallOutcome) => {
        if (done) return;
        done = true;
        budget.stop();
        signal.removeEventListener('abort', onAbort);
        if (instance.pending?.id === id) instance.pending = undefined;
        resolve(outcome);
      };
      const terminateThen = (outcome: GuestCallOutcome, reason: string) => {
        if (instance.pending?.id === id) instance.pending = undefined;
        budget.stop();
        void this.#kill(instance, reason).then(() => finish(outcome));
      };
      const extensionMs = this.#options.hostWaitLimitMs ?? LIMITS.toolCallExtensionTotalMs;
      const budget = new CallBudget(timeoutMs, extensionMs, (why: BudgetExpiry) =>
        terminateThen(
          {
            kind: 'timeout',
            message:
              why === 'budget'
                ? `wasm plugin ${this.plugin}: tool ${JSON.stringify(name)} ran past its ${timeoutMs} ms time budget (time in host calls other than sampling and elicitation counts); the instance was terminated`
                : `wasm plugin ${this.plugin}: tool ${JSON.stringify(name)} waited on sampling or elicitation for more than ${extensionMs} ms in total; the instance was terminated`,
          },
          'timeout',
        ),
      );
      const onAbort = () =>
        terminateThen(
          {
            kind: 'cancelled',
            message: `interrupted: the call of tool ${JSON.stringify(name)} in wasm plugin ${this.plugin} was cancelled`,
          },
          'cancelled',
        );
      signal.addEventListener('abort', onAbort, { once: true });
      instance.pending = { id, finish, budget, signal };
      this.#send(instance, id, name, argsJson);
    });
  }

  /** Hands call `id` to the worker through the slot and settles it when the worker finishes. */
  #send(instance: Instance, id: number, name: string, argsJson: string): void {
    sendSlotCall(instance.slot, instance.callPort, id, name, argsJson);
    awaitSlotResult(
      instance.slot,
      id,
      // Not woken by #kill, and not settled otherwise (by message, cancelled, timed out, closed).
      () => !instance.dead && instance.pending?.id === id,
      (outcome, text, memoryBytes) => {
        const pending = instance.pending;
        if (pending !== undefined) this.#settle(instance, pending, outcome, text, memoryBytes);
      },
    );
  }

  /**
   * A worker compiled the glue without a usable code cache and made one: later workers (restarts)
   * get it, and the owner may keep it for later processes. Once per guest host.
   */
  #onGlueCodeCache(data: Uint8Array): void {
    const glue = this.#glueReady;
    if (this.#glueCodeCacheMade || glue === undefined) return;
    this.#glueCodeCacheMade = true;
    this.#glueReady = { source: glue.source, codeCache: data };
    this.#glueCodeCacheArrived?.();
    this.#options.onGlueCodeCache?.(data);
  }

  #onResult(instance: Instance, message: ResultMessage): void {
    const pending = instance.pending;
    if (pending === undefined || pending.id !== message.id) return;
    this.#settle(instance, pending, message.outcome, message.value, message.memoryBytes);
  }

  #settle(
    instance: Instance,
    pending: PendingCall,
    outcome: ResultMessage['outcome'],
    value: string,
    memoryBytes: number,
  ): void {
    instance.pending = undefined;
    const limit = this.#memoryLimitBytes;
    if (outcome === 'ok') {
      pending.finish({ kind: 'ok', value: String(value) });
      if (memoryBytes >= limit * MEMORY_HIGH_WATER) {
        void this.#kill(instance, 'memory high-water mark');
      }
      return;
    }
    if (outcome === 'err' && !OUT_OF_MEMORY.test(value)) {
      pending.finish({ kind: 'error', message: value });
      if (memoryBytes >= limit * MEMORY_HIGH_WATER) {
        void this.#kill(instance, 'memory high-water mark');
      }
      return;
    }
    const kind = outcome === 'err' || OUT_OF_MEMORY.test(value) ? 'out-of-memory' : 'trap';
    const what = kind === 'out-of-memory' ? `ran out of memory (cap ${limit} bytes)` : 'trapped';
    pending.budget.stop();
    void this.#kill(instance, kind).then(() =>
      pending.finish({
        kind,
        message: `wasm plugin ${this.plugin} ${what}: ${value}; the instance was restarted`,
      }),
    );
  }

  async #kill(instance: Instance, reason: string): Promise<void> {
    if (instance.dead) return;
    instance.dead = true;
    if (this.#instance === instance) this.#instance = undefined;
    // A code cache that did not come before the worker ended will not come.
    this.#glueCodeCacheArrived?.();
    const stopped = new WasmError(WasmErrorCode.WASM_CLOSED, `instance stopped: ${reason}`);
    // A start still waiting (on the component, the worker or the guest) ends with the instance.
    instance.failStart(stopped);
    instance.life.abort(stopped);
    instance.port.close();
    instance.callPort.close();
    // Releases the host's wait on a call that will never finish.
    releaseSlotWaiters(instance.slot);
    if (reason !== PREOPENS_CHANGED && reason !== CLOSED) this.#recycled++;
    this.#options.onRecycle?.(reason);
    await settledWithin(
      instance.worker.terminate().catch(() => 0),
      TERMINATE_WAIT_MS,
    );
  }
}

/** Waits for `work` (which must not reject), but at most `ms`. */
async function settledWithin(work: Promise<unknown>, ms: number): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  await Promise.race([
    work,
    new Promise<void>((resolve) => {
      timer = setTimeout(resolve, ms);
    }),
  ]);
  clearTimeout(timer);
}

/**
 * The background mount of a trusted project's servers: every server connects in parallel, the
 * first run waits a bounded time for the initial surface and then freezes the registries; a
 * server that finishes later is rejected and reported. Failures stay per server.
 * @module
 */
import {
  CancelToken,
  errorMessage,
  type HostServices,
  isKernelError,
  KernelErrorCode,
  LIMITS,
  type PromptContribution,
  type PromptRegistry,
  type Redactor,
  type Scope,
  type ToolRegistry,
  type TransportKind,
} from '@clat/kernel';
import type {
  MountEntry,
  MountedServer,
  ServerConnector,
  ServerProgress,
  ServerState,
} from './server-connector.js';

export interface ServerStatus {
  name: string;
  origin: string;
  transport: TransportKind;
  /** Safe to show: command or URL origin, never env values or headers. */
  target: string;
  state: ServerState;
  phase: string | undefined;
  protocolVersion: string | undefined;
  era: string | undefined;
  tools: number;
  prompts: number;
  /** Milliseconds from mount start to connected or failed. */
  durationMs: number | undefined;
  failure: string | undefined;
  /** For `needs-login`: the exact command that logs in. */
  login?: string | undefined;
  stderrTail: string[];
  warnings: string[];
}

export interface McpSummary {
  configured: number;
  connecting: number;
  connected: number;
  failed: number;
  /** OAuth-protected servers waiting for `clat mcp login`. */
  needsLogin: number;
  /** True once the registries froze for the first run. */
  frozen: boolean;
  servers: ServerStatus[];
}

export interface ProjectMountOptions {
  servers: readonly MountEntry[];
  connectors: readonly ServerConnector[];
  registry: ToolRegistry;
  prompts: PromptRegistry;
  scope: Scope;
  hostServices: HostServices;
  projectRoot: string;
  clatHome: string;
  /** Redacts configured secrets (headers, env values) out of every diagnostic. */
  redactor: Redactor;
  /** Static prompts contributed when the server named by `source.id` connects. */
  staticPrompts?: readonly PromptContribution[];
}

interface Entry {
  config: MountEntry;
  status: ServerStatus;
  mounted: MountedServer | undefined;
  started: number;
}

function targetOf(server: MountEntry): string {
  if (server.transport === 'wasm') return server.path ?? server.manifest ?? '';
  if (server.transport === 'http') {
    try {
      const url = new URL(server.url);
      return `${url.origin}${url.pathname}`;
    } catch {
      return server.url;
    }
  }
  return [server.command, ...(server.args ?? [])].join(' ');
}

export class ProjectMount {
  readonly #options: ProjectMountOptions;
  readonly #entries: Entry[];
  readonly #token: CancelToken;
  readonly #listeners = new Set<() => void>();
  #settled: Promise<void> | undefined;
  #frozen = false;

  constructor(options: ProjectMountOptions) {
    this.#options = options;
    this.#token = new CancelToken();
    this.#entries = options.servers.map((config) => ({
      config,
      mounted: undefined,
      started: 0,
      status: {
        name: config.name,
        origin: config.origin,
        transport: config.transport,
        target: options.redactor.redact(targetOf(config)),
        state: 'connecting',
        phase: 'queued',
        protocolVersion: undefined,
        era: undefined,
        tools: 0,
        prompts: 0,
        durationMs: undefined,
        failure: undefined,
        stderrTail: [],
        warnings: [],
      },
    }));
    options.scope.onPreClose(() => this.#token.cancel('project scope closed'), 'cancel mounts');
  }

  get frozen(): boolean {
    return this.#frozen;
  }

  /** Starts every server at once. Idempotent; resolves when all settled (never rejects). */
  start(): Promise<void> {
    this.#settled ??= Promise.allSettled(this.#entries.map((entry) => this.#mountOne(entry))).then(
      () => undefined,
    );
    return this.#settled;
  }

  /** Fires on every status change (progress indicators, the REPL status line). */
  onChange(listener: () => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Resolves true when every server settled within `ms`, false on timeout. */
  async waitSettled(ms: number): Promise<boolean> {
    const settled = this.start();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<false>((resolve) => {
      timer = setTimeout(() => resolve(false), ms);
      timer.unref?.();
    });
    try {
      return await Promise.race([settled.then(() => true as const), timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  /**
   * The first run's gate: waits up to the initial-surface limit, then freezes the tool and prompt
   * registries. Later calls return at once.
   */
  async freezeForFirstRun(waitMs: number = LIMITS.initialSurfaceWaitMs): Promise<void> {
    if (this.#frozen) return;
    await this.waitSettled(waitMs);
    if (this.#frozen) return;
    this.#frozen = true;
    this.#options.registry.freeze();
    this.#options.prompts.freeze();
    for (const entry of this.#entries) {
      if (entry.status.state === 'connecting') {
        entry.status.warnings.push(
          `still connecting when the registries froze after ${waitMs} ms; its tools will be rejected`,
        );
      }
    }
    this.#changed();
  }

  summary(): McpSummary {
    const servers = this.#entries.map((entry): ServerStatus => {
      const status = { ...entry.status, warnings: [...entry.status.warnings] };
      const live = entry.status.state === 'connected' ? entry.mounted?.current?.() : undefined;
      if (live !== undefined) {
        if (live.stderrTail !== undefined) status.stderrTail = this.#clean(live.stderrTail);
        if (live.tools !== undefined) status.tools = live.tools;
        if (live.failure !== undefined) {
          status.state = 'failed';
          status.failure = this.#options.redactor.redact(live.failure);
        }
      }
      return { ...status, stderrTail: [...status.stderrTail] };
    });
    const count = (state: ServerState) => servers.filter((s) => s.state === state).length;
    return {
      configured: servers.length,
      connecting: count('connecting'),
      connected: count('connected'),
      failed: count('failed'),
      needsLogin: count('needs-login'),
      frozen: this.#frozen,
      servers,
    };
  }

  #clean(lines: readonly string[]): string[] {
    return lines.slice(-LIMITS.stderrTailLines).map((line) => this.#options.redactor.redact(line));
  }

  #changed(): void {
    for (const listener of this.#listeners) {
      try {
        listener();
      } catch {
        // A status listener never breaks the mount.
      }
    }
  }

  #progress(entry: Entry, progress: ServerProgress): void {
    const status = entry.status;
    if (progress.protocolVersion !== undefined) status.protocolVersion = progress.protocolVersion;
    if (progress.era !== undefined) status.era = progress.era;
    if (progress.phase !== undefined) status.phase = progress.phase;
    if (progress.tools !== undefined) status.tools = progress.tools;
    if (progress.prompts !== undefined) status.prompts = progress.prompts;
    if (progress.stderrTail !== undefined) status.stderrTail = this.#clean(progress.stderrTail);
    if (progress.warnings !== undefined) {
      status.warnings = progress.warnings.map((w) => this.#options.redactor.redact(w));
    }
    this.#changed();
  }

  #fail(entry: Entry, message: string): void {
    entry.status.state = 'failed';
    entry.status.phase = undefined;
    entry.status.failure = this.#options.redactor.redact(message);
    entry.status.durationMs = Date.now() - entry.started;
    this.#changed();
  }

  #contributePrompts(entry: Entry): void {
    for (const prompt of this.#options.staticPrompts ?? []) {
      if (prompt.source.id !== entry.config.name) continue;
      try {
        this.#options.prompts.register(prompt, this.#options.scope);
        entry.status.prompts++;
      } catch (error) {
        entry.status.warnings.push(
          this.#options.redactor.redact(`prompt ${prompt.name}: ${errorMessage(error)}`),
        );
      }
    }
  }

  async #mountOne(entry: Entry): Promise<void> {
    entry.started = Date.now();
    const { options } = { options: this.#options };
    const connector = options.connectors.find((c) => c.transports.includes(entry.config.transport));
    if (connector === undefined) {
      this.#fail(
        entry,
        `no connector for the ${entry.config.transport} transport is wired into this build`,
      );
      return;
    }
    if (options.scope.closed || this.#token.cancelled) {
      this.#fail(entry, 'the project scope closed before the server was started');
      return;
    }
    // Registered before mounting so the scope revokes this server's leases (registered later,
    // closed earlier) before the server itself is closed.
    options.scope.onClose(async () => {
      await entry.mounted?.close();
    }, `close server ${entry.config.name}`);
    entry.status.phase = 'starting';
    this.#changed();
    try {
      const mounted = await connector.mount({
        server: entry.config,
        registry: options.registry,
        prompts: options.prompts,
        scope: options.scope,
        hostServices: options.hostServices,
        projectRoot: options.projectRoot,
        clatHome: options.clatHome,
        signal: this.#token.signal,
        onProgress: (progress) => this.#progress(entry, progress),
      });
      entry.mounted = mounted;
      this.#progress(entry, mounted.progress);
      if (this.#frozen) {
        await mounted.close().catch(() => {});
        this.#fail(
          entry,
          'finished connecting after the tool and prompt registries froze for the first run; its registrations were rejected. Restart CLAT after fixing or warming this server',
        );
        return;
      }
      this.#contributePrompts(entry);
      entry.status.state = 'connected';
      entry.status.phase = undefined;
      entry.status.durationMs = Date.now() - entry.started;
      this.#changed();
    } catch (error) {
      const tail = (error as { stderrTail?: unknown }).stderrTail;
      if (Array.isArray(tail)) entry.status.stderrTail = this.#clean(tail.map(String));
      const login = (error as { loginCommand?: unknown }).loginCommand;
      if (typeof login === 'string') {
        this.#fail(entry, errorMessage(error));
        entry.status.state = 'needs-login';
        entry.status.login = login;
        return;
      }
      const frozen =
        isKernelError(error) && error.code === KernelErrorCode.REGISTRY_FROZEN
          ? ' (the registries froze for the first run before this server finished; restart CLAT after fixing or warming it)'
          : '';
      this.#fail(entry, `${errorMessage(error)}${frozen}`);
    }
  }
}

/**
 * The background mount of a trusted project's plugins: every entry mounts in parallel, each in
 * its own plugin scope; the first run waits a bounded time for the initial surface and then
 * freezes the registries; a plugin that finishes later is rejected and reported. Failures stay
 * per plugin. The one status shape (`MountStatus`) is built and redacted here only.
 * @module
 */
import { abortable, CancelToken } from '../cancel.js';
import type { HostServices } from '../contract/host-services.js';
import { errorMessage, isKernelError, KernelError, KernelErrorCode } from '../errors.js';
import { LIMITS } from '../limits.js';
import type { PromptContribution, PromptRegistry } from '../prompt-registry.js';
import type { Redactor } from '../redact.js';
import type { Scope } from '../scope.js';
import type { ToolRegistry } from '../tool-registry.js';
import type { PluginCatalog } from './catalog.js';
import type {
  Connector,
  MountDescription,
  MountEntry,
  MountedPlugin,
  MountLogEntry,
  MountProgress,
  MountRoots,
  MountState,
} from './connector.js';

/** One plugin's line in `/mcp`. Every text is redacted. */
export interface MountStatus {
  name: string;
  origin: string;
  transport: string;
  /** Safe to show: command or URL origin, never env values or headers. */
  target: string;
  state: MountState;
  phase: string | undefined;
  protocolVersion: string | undefined;
  era: string | undefined;
  tools: number;
  /** Prompts the plugin offers for people to invoke (`clat prompts`; an MCP server's list). */
  prompts: number;
  /** Prompts it contributed to the system prompt (marked DSH prompts, static prompts). */
  systemPrompts: number;
  /** Milliseconds from mount start to connected or failed. */
  durationMs: number | undefined;
  failure: string | undefined;
  /** For `needs-login`: the exact command that logs in. */
  login?: string | undefined;
  stderrTail: string[];
  warnings: string[];
  /** Newest messages of the plugin's own log, oldest first (see `MountProgress.logTail`). */
  logTail: MountLogEntry[];
  /** MCP roots support (absent for plugins without roots). */
  roots?: MountRoots | undefined;
  /** The standalone server stream, for transports that have one (see `MountProgress`). */
  getStream?: MountProgress['getStream'];
  /** Task support of the plugin, in a few words; absent when it has none. */
  tasks?: string | undefined;
}

export interface MountSummary {
  configured: number;
  connecting: number;
  connected: number;
  failed: number;
  /** OAuth-protected servers waiting for `clat mcp login`. */
  needsLogin: number;
  /** True once the registries froze for the first run. */
  frozen: boolean;
  servers: MountStatus[];
}

export interface PluginMountOptions {
  entries: readonly MountEntry[];
  connectors: readonly Connector[];
  registry: ToolRegistry;
  prompts: PromptRegistry;
  /** The trusted project scope; each plugin gets a plugin scope under it. */
  scope: Scope;
  hostServices: HostServices;
  projectRoot: string;
  /** Knows every configured secret; redacts every diagnostic. */
  redactor: Redactor;
  /** Static prompts, registered with the plugin named by `source.id` when it connects. */
  staticPrompts?: readonly PromptContribution[];
  /** What messages call the program to restart (`HostOptions.displayName`; default `CLAT`). */
  displayName?: string;
}

/** What the host's messages call the program a person restarts, unless a distribution names it. */
export const DEFAULT_DISPLAY_NAME = 'CLAT';

interface Entry {
  config: MountEntry;
  connector: Connector | undefined;
  status: MountStatus;
  /** Warnings the host itself added (freeze, prompts): a plugin's report never replaces them. */
  hostWarnings: string[];
  mounted: MountedPlugin | undefined;
  started: number;
}

/** How an entry shows and which secrets it carries, from its connector. */
export function describeEntry(
  entry: MountEntry,
  connector: Connector | undefined,
): MountDescription {
  return connector?.describe?.(entry) ?? { transport: entry.kind, target: '' };
}

/** A plugin's status before it mounts (and again before `remount`): queued, nothing known yet. */
function queuedStatus(
  config: MountEntry,
  connector: Connector | undefined,
  redactor: Redactor,
): MountStatus {
  const description = describeEntry(config, connector);
  return {
    name: config.name,
    origin: config.origin,
    transport: description.transport,
    target: redactor.redact(description.target),
    state: 'connecting',
    phase: 'queued',
    protocolVersion: undefined,
    era: undefined,
    tools: 0,
    prompts: 0,
    systemPrompts: 0,
    durationMs: undefined,
    failure: undefined,
    stderrTail: [],
    warnings: [],
    logTail: [],
  };
}

/**
 * The one report of a plugin that finished after the first-run freeze, whether the host saw it
 * finish late or the registry refused one of its registrations (REGISTRY_FROZEN): the freeze is
 * the host's policy, so no connector words it.
 */
function rejectedAfterFreeze(entry: MountEntry, host: string): string {
  return `${entry.kind} plugin ${JSON.stringify(entry.name)} finished mounting after the tool and prompt registries froze for the first run, so its registrations were revoked; restart ${host} after fixing or warming it`;
}

/**
 * Entries are found by name (status, catalog, scopes, a server's prompts), whatever their kind:
 * a second entry of one name would start beside the first and be unreachable. A distribution
 * composing entries itself (not through `collectMountSources`, which drops later ones with a
 * note) is told at once.
 */
function assertDistinctNames(entries: readonly MountEntry[]): void {
  const seen = new Map<string, MountEntry>();
  for (const entry of entries) {
    const first = seen.get(entry.name);
    if (first !== undefined) {
      throw new KernelError(
        KernelErrorCode.CONFIG_INVALID,
        `two mount entries are named ${JSON.stringify(entry.name)} (${first.kind} and ${entry.kind}); entries are found by name, so give each its own (collectMountSources keeps the first of a name and notes the others)`,
      );
    }
    seen.set(entry.name, entry);
  }
}

export class PluginMount {
  readonly #options: PluginMountOptions;
  /** What the restart advice calls the program (`displayName`, else `CLAT`). */
  readonly #displayName: string;
  readonly #entries: Entry[];
  readonly #token = new CancelToken();
  readonly #listeners = new Set<() => void>();
  #settled: Promise<void> | undefined;
  /** Mounts started again by `remount`, which the first run's wait includes. */
  readonly #remounts = new Set<Promise<void>>();
  #frozen = false;

  constructor(options: PluginMountOptions) {
    assertDistinctNames(options.entries);
    this.#options = options;
    this.#displayName = options.displayName ?? DEFAULT_DISPLAY_NAME;
    const byKind = new Map<string, Connector>();
    for (const connector of options.connectors) {
      if (!byKind.has(connector.kind)) byKind.set(connector.kind, connector);
    }
    this.#entries = options.entries.map((config) => {
      const connector = byKind.get(config.kind);
      return {
        config,
        connector,
        mounted: undefined,
        started: 0,
        hostWarnings: [],
        status: queuedStatus(config, connector, options.redactor),
      };
    });
    options.scope.onPreClose(() => this.#token.cancel('project scope closed'), 'cancel mounts');
  }

  get frozen(): boolean {
    return this.#frozen;
  }

  /** Starts every entry at once. Idempotent; resolves when all settled (never rejects). */
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

  /** Resolves true when every entry settled within `ms`, false on timeout. */
  async waitSettled(ms: number): Promise<boolean> {
    const settled = Promise.all([this.start(), ...this.#remounts]);
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<false>((resolve) => {
      timer = setTimeout(() => resolve(false), ms);
      (timer as { unref?: () => void }).unref?.();
    });
    try {
      return await Promise.race([settled.then(() => true as const), timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  /**
   * The first run's gate: waits up to the initial-surface limit, then freezes the tool and prompt
   * registries. Later calls return at once. An abort of `signal` during the wait rejects with
   * CANCELLED and freezes nothing: the run it was for never began.
   */
  async freezeForFirstRun(
    waitMs: number = LIMITS.initialSurfaceWaitMs,
    signal?: AbortSignal,
  ): Promise<void> {
    if (this.#frozen) return;
    await abortable(this.waitSettled(waitMs), signal, 'the wait for plugins to connect');
    if (this.#frozen) return;
    this.#frozen = true;
    this.#options.registry.freeze();
    this.#options.prompts.freeze();
    for (const entry of this.#entries) {
      if (entry.status.state === 'connecting') {
        this.#warn(
          entry,
          `still connecting when the registries froze after ${waitMs} ms; its tools will be rejected`,
        );
      }
    }
    this.#changed();
  }

  /**
   * Mounts again a plugin that failed or waits for a login (the person just logged in): before
   * the first run froze the registries, its tools and prompts join them as if it had connected
   * late. After the freeze the registries do not thaw, so it changes nothing (restart CLAT to
   * mount it). Resolves to the plugin's status afterwards; undefined when none has that name.
   */
  async remount(name: string): Promise<MountStatus | undefined> {
    const index = this.#entries.findIndex((candidate) => candidate.config.name === name);
    const entry = this.#entries[index];
    if (entry === undefined) return undefined;
    const { state } = entry.status;
    if (!this.#frozen && (state === 'failed' || state === 'needs-login')) {
      // Nothing the failed attempt reported (transport, roots, tasks, stream) carries over.
      entry.status = queuedStatus(entry.config, entry.connector, this.#options.redactor);
      entry.status.warnings.push(...entry.hostWarnings);
      entry.mounted = undefined;
      const mounting = this.#mountOne(entry);
      this.#remounts.add(mounting);
      try {
        await mounting;
      } finally {
        this.#remounts.delete(mounting);
      }
    }
    return this.summary().servers[index];
  }

  /**
   * The catalog of a plugin that is connected now, or undefined (unknown, failed, still
   * connecting, or offering no prompts or resources).
   */
  catalog(name: string): PluginCatalog | undefined {
    const entry = this.#entries.find((candidate) => candidate.config.name === name);
    if (entry === undefined || entry.status.state !== 'connected') return undefined;
    if (entry.mounted?.current?.().failure !== undefined) return undefined;
    return entry.mounted?.catalog;
  }

  /** Names of the connected plugins that offer a catalog, in configuration order. */
  catalogNames(): string[] {
    return this.#entries
      .filter((entry) => this.catalog(entry.config.name) !== undefined)
      .map((entry) => entry.config.name);
  }

  /** A copy of every status, with the live view of connected plugins folded in. */
  summary(): MountSummary {
    const servers = this.#entries.map((entry): MountStatus => {
      const status = {
        ...entry.status,
        warnings: [...entry.status.warnings],
        stderrTail: [...entry.status.stderrTail],
        logTail: [...entry.status.logTail],
      };
      const live = entry.status.state === 'connected' ? entry.mounted?.current?.() : undefined;
      if (live !== undefined) {
        if (live.stderrTail !== undefined) status.stderrTail = this.#clean(live.stderrTail);
        if (live.logTail !== undefined) status.logTail = this.#cleanLog(live.logTail);
        if (live.tools !== undefined) status.tools = live.tools;
        if (live.roots !== undefined) status.roots = { ...live.roots };
        if (live.getStream !== undefined) status.getStream = live.getStream;
        if (live.failure !== undefined) {
          status.state = 'failed';
          status.failure = this.#options.redactor.redact(live.failure);
        }
      }
      return status;
    });
    const count = (state: MountState) => servers.filter((s) => s.state === state).length;
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

  /** The newest log entries, each text redacted (the adapter already cut and bounded them). */
  #cleanLog(entries: readonly MountLogEntry[]): MountLogEntry[] {
    const redact = (text: string) => this.#options.redactor.redact(text);
    return entries.slice(-LIMITS.logTailEntries).map((entry): MountLogEntry => {
      const level = redact(entry.level);
      const text = redact(entry.text);
      if (entry.logger === undefined) return { level, text };
      return { level, logger: redact(entry.logger), text };
    });
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

  #progress(entry: Entry, progress: MountProgress): void {
    const status = entry.status;
    if (progress.protocolVersion !== undefined) status.protocolVersion = progress.protocolVersion;
    if (progress.era !== undefined) status.era = progress.era;
    if (progress.transport !== undefined) status.transport = progress.transport;
    if (progress.phase !== undefined) status.phase = progress.phase;
    if (progress.tools !== undefined) status.tools = progress.tools;
    if (progress.prompts !== undefined) status.prompts = progress.prompts;
    if (progress.systemPrompts !== undefined) status.systemPrompts = progress.systemPrompts;
    if (progress.roots !== undefined) status.roots = { ...progress.roots };
    if (progress.getStream !== undefined) status.getStream = progress.getStream;
    if (progress.tasks !== undefined) status.tasks = this.#options.redactor.redact(progress.tasks);
    if (progress.stderrTail !== undefined) status.stderrTail = this.#clean(progress.stderrTail);
    if (progress.logTail !== undefined) status.logTail = this.#cleanLog(progress.logTail);
    if (progress.warnings !== undefined) {
      status.warnings = [
        ...entry.hostWarnings,
        ...progress.warnings.map((w) => this.#options.redactor.redact(w)),
      ];
    }
    this.#changed();
  }

  /** A warning of the host's own, kept across the plugin's later reports. */
  #warn(entry: Entry, message: string): void {
    const text = this.#options.redactor.redact(message);
    entry.hostWarnings.push(text);
    entry.status.warnings.push(text);
  }

  #fail(entry: Entry, message: string): void {
    entry.status.state = 'failed';
    entry.status.phase = undefined;
    entry.status.failure = this.#options.redactor.redact(message);
    entry.status.durationMs = Date.now() - entry.started;
    this.#changed();
  }

  #contributePrompts(entry: Entry, scope: Scope): void {
    for (const prompt of this.#options.staticPrompts ?? []) {
      if (prompt.source.id !== entry.config.name) continue;
      try {
        this.#options.prompts.register(prompt, scope);
        entry.status.systemPrompts++;
      } catch (error) {
        this.#warn(entry, `prompt ${prompt.name}: ${errorMessage(error)}`);
      }
    }
  }

  async #mountOne(entry: Entry): Promise<void> {
    entry.started = Date.now();
    const options = this.#options;
    const { connector } = entry;
    if (connector === undefined) {
      this.#fail(entry, `no connector for ${entry.config.kind} entries is wired into this build`);
      return;
    }
    if (options.scope.closed || this.#token.cancelled) {
      this.#fail(entry, 'the project scope closed before the server was started');
      return;
    }
    const scope = options.scope.pluginScope(entry.config.name);
    entry.status.phase = 'starting';
    this.#changed();
    try {
      const mounted = await connector.mount(entry.config, {
        registry: options.registry,
        prompts: options.prompts,
        scope,
        hostServices: options.hostServices,
        projectRoot: options.projectRoot,
        redactor: options.redactor,
        signal: this.#token.signal,
        hostName: this.#displayName,
        onProgress: (progress) => this.#progress(entry, progress),
      });
      entry.mounted = mounted;
      this.#progress(entry, mounted.progress);
      if (this.#frozen) {
        await scope.close().catch(() => {});
        this.#fail(entry, rejectedAfterFreeze(entry.config, this.#displayName));
        return;
      }
      this.#contributePrompts(entry, scope);
      entry.status.state = 'connected';
      entry.status.phase = undefined;
      entry.status.durationMs = Date.now() - entry.started;
      this.#changed();
    } catch (error) {
      await scope.close().catch(() => {});
      const tail = (error as { stderrTail?: unknown }).stderrTail;
      if (Array.isArray(tail)) entry.status.stderrTail = this.#clean(tail.map(String));
      const login = (error as { loginCommand?: unknown }).loginCommand;
      if (typeof login === 'string') {
        this.#fail(entry, errorMessage(error));
        entry.status.state = 'needs-login';
        entry.status.login = login;
        return;
      }
      const frozen = isKernelError(error) && error.code === KernelErrorCode.REGISTRY_FROZEN;
      this.#fail(
        entry,
        frozen ? rejectedAfterFreeze(entry.config, this.#displayName) : errorMessage(error),
      );
    }
  }
}

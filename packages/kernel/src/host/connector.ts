/**
 * The connector port: how the host mounts one configured plugin of any kind. The host owns the
 * lifecycle (parallel start, first-run freeze, status, redaction, the plugin's scope); a
 * connector only connects, registers into the given registries and reports progress.
 * @module
 */
import type { HostServices } from '../contract/host-services.js';
import { KernelError, KernelErrorCode } from '../errors.js';
import type { PromptRegistry } from '../prompt-registry.js';
import type { Redactor } from '../redact.js';
import type { Scope } from '../scope.js';
import type { ToolRegistry } from '../tool-registry.js';
import type { PluginCatalog } from './catalog.js';

/**
 * One configured plugin. `kind` picks the connector; `config` is opaque to the kernel (an
 * server entry for `mcp`, a component reference for `wasm`, anything for a custom kind).
 */
export interface MountEntry<Config = unknown> {
  readonly kind: string;
  readonly name: string;
  /** Where the entry came from (`user`, `package`, `plugins.json`, `glm-pack`…), shown in status. */
  readonly origin: string;
  readonly config: Config;
}

/** `needs-login`: the plugin waits for a person to log in (not a failure); see `MountError`. */
export type MountState = 'connecting' | 'connected' | 'failed' | 'needs-login';

/**
 * One message of a plugin's own log (an MCP server's log notifications), as status shows it:
 * `level` is the syslog severity the plugin gave (`debug` … `emergency`), `text` its data as
 * one compact string, cut.
 */
export interface MountLogEntry {
  level: string;
  /** The part of the plugin that logged it, when the plugin names one. */
  logger?: string;
  text: string;
}

/** What a connector may report while or after mounting (all optional, merged into the status). */
export interface MountProgress {
  /** Negotiated protocol version (`2026-07-28`, `2025-06-18`, `clat:plugin@0.1.0`…). */
  protocolVersion?: string;
  /** `modern` or `legacy` (MCP). */
  era?: string;
  /**
   * The transport in use when it is not the configured one (an MCP server that answered only
   * over HTTP+SSE after Streamable HTTP failed: `sse`); replaces the description's label.
   */
  transport?: string;
  /** What the connector is doing now (`spawning`, handshaking, `loading`…). */
  phase?: string;
  tools?: number;
  /** Prompts the plugin offers for people to invoke (its catalog's, e.g. an MCP server's). */
  prompts?: number;
  /** Prompts it contributed to the system prompt (marked DSH prompts, static prompts). */
  systemPrompts?: number;
  /** Newest output lines of the plugin (stderr of a stdio server, guest output). */
  stderrTail?: readonly string[];
  /** Registry rejections (collisions, caps) that did not fail the plugin. */
  warnings?: readonly string[];
  /** Newest messages of the plugin's own log, oldest first. */
  logTail?: readonly MountLogEntry[];
  /**
   * The plugin's standalone server→client stream (an MCP Streamable HTTP GET): `none` when it
   * has none, `opening`, `open` or `closed`. Absent for transports without one.
   */
  getStream?: 'none' | 'opening' | 'open' | 'closed';
  /**
   * MCP roots: whether the project root was offered and how often the server asked for it;
   * `pathArguments` when the entry's arguments name paths (a server such as server-filesystem
   * takes its directories there, and narrows itself to the roots instead once it has them).
   */
  roots?: MountRoots;
  /** How the plugin runs long calls as tasks, in a few words (shown in status). */
  tasks?: string;
}

/** See `MountProgress.roots`. */
export interface MountRoots {
  offered: boolean;
  requests: number;
  pathArguments?: boolean;
}

/** Where a plugin stands as its adapter reports it; `closed` once its scope closed. */
export type MountReportState = 'connecting' | 'connected' | 'failed' | 'closed';

/**
 * An adapter's whole report of one plugin (`MountProgress` plus where it stands and why it
 * failed), as its standalone mount returns it and its connector hands it to the host unchanged.
 * Texts are raw: the host's redactor cleans them into `MountStatus`.
 */
export interface MountReport extends MountProgress {
  state: MountReportState;
  /** Why the plugin failed (set when `state` is `failed`). */
  failure?: string;
  tools: number;
  warnings: string[];
  stderrTail: string[];
}

/** How an entry shows in status, and which of its configured values are secret. */
export interface MountDescription {
  /** Short label of how it runs (`stdio`, `http`, `wasm`). */
  transport: string;
  /** Safe to show: command or URL origin, never env values or headers. */
  target: string;
  /** Values the host redacts from every diagnostic (header values, secret env values). */
  secrets?: readonly string[];
}

/** What a connector gets for one mount. */
export interface MountContext {
  readonly registry: ToolRegistry;
  readonly prompts: PromptRegistry;
  /** This plugin's own scope: register leases and close hooks here; the host closes it. */
  readonly scope: Scope;
  readonly hostServices: HostServices;
  /** The trusted project root. */
  readonly projectRoot: string;
  /** The host's redactor: it knows every configured secret. */
  readonly redactor: Redactor;
  /** Aborted when the project closes before the plugin finished mounting. */
  readonly signal: AbortSignal;
  /**
   * What messages call the program a person restarts ("restart CLAT to use the new list"): the
   * distribution's name (`HostOptions.displayName`); absent in older hosts, read as `CLAT`.
   */
  readonly hostName?: string;
  onProgress(progress: MountProgress): void;
}

/** A mounted plugin. Its resources live in its scope; the host closes that scope. */
export interface MountedPlugin {
  readonly progress: MountProgress;
  /** The live view, read when status is rendered: a connection can still drop after mounting. */
  current?(): MountProgress & { failure?: string | undefined };
  /** Prompts and resources the plugin offers for people to invoke (absent: none). */
  readonly catalog?: PluginCatalog;
}

/** Mounts entries of one kind. Throwing fails only that entry. */
export interface Connector<Config = unknown> {
  readonly kind: string;
  /** Status label, target and secrets of an entry (default: the kind, no target, no secrets). */
  describe?(entry: MountEntry<Config>): MountDescription;
  mount(entry: MountEntry<Config>, ctx: MountContext): Promise<MountedPlugin>;
}

/** Thrown by a connector when its plugin failed; carries the plugin's newest output lines. */
export class MountError extends KernelError {
  readonly stderrTail: readonly string[];
  /** Set when the plugin only needs a login: the command that does it (state `needs-login`). */
  readonly loginCommand: string | undefined;

  constructor(
    message: string,
    stderrTail: readonly string[] = [],
    cause?: unknown,
    loginCommand?: string,
  ) {
    super(KernelErrorCode.MOUNT_FAILED, message, cause === undefined ? {} : { cause });
    this.name = 'MountError';
    this.stderrTail = stderrTail;
    this.loginCommand = loginCommand;
  }
}

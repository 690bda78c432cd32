/**
 * The port between the project mount and whatever connects one configured server (the MCP
 * client core over a stdio or HTTP transport). The mount owns lifecycle and status; a connector
 * only connects, registers into the given registries and reports progress.
 * @module
 */
import type {
  HostServices,
  McpServerConfig,
  PromptRegistry,
  Scope,
  ServerOrigin,
  ToolRegistry,
  TransportKind,
} from '@clat/kernel';
import { ClatError } from '@clat/kernel';

/** A WASM component plugin (`~/.clat/plugins.json` or an installed wasm-component package). */
export interface WasmMountEntry {
  transport: 'wasm';
  name: string;
  origin: ServerOrigin;
  /** Absolute component path (path entries). */
  path?: string;
  /** Manifest file or package directory (manifest entries: capabilities ceiling, pins). */
  manifest?: string;
  sha256?: string;
  config?: unknown;
  dirs: string[];
}

/** Anything the project mount connects: an MCP server or a WASM plugin. */
export type MountEntry = McpServerConfig | WasmMountEntry;

/** `needs-login`: an OAuth-protected server without usable tokens (not a failure). */
export type ServerState = 'connecting' | 'connected' | 'failed' | 'needs-login';

/** What a connector may report while or after connecting (all optional, merged into status). */
export interface ServerProgress {
  /** Negotiated protocol version (`2026-07-28`, `2025-06-18`, …). */
  protocolVersion?: string;
  /** `modern` or `legacy`. */
  era?: string;
  /** What the connector is doing now (`spawning`, `probing`, `initialize`, `tools/list`…). */
  phase?: string;
  tools?: number;
  prompts?: number;
  /** Redacted stderr tail (stdio) or recent HTTP failures. */
  stderrTail?: string[];
  /** Registry rejections (collisions, caps) that did not fail the server. */
  warnings?: string[];
}

export interface ServerMountRequest {
  server: MountEntry;
  registry: ToolRegistry;
  prompts: PromptRegistry;
  /** The trusted project scope; registrations lease into it. */
  scope: Scope;
  hostServices: HostServices;
  projectRoot: string;
  /** `~/.clat`: the default working directory of user stdio servers. */
  clatHome: string;
  /** Aborted when the project scope closes before the server finished connecting. */
  signal: AbortSignal;
  onProgress(progress: ServerProgress): void;
}

/** A connected server. `close` is idempotent; the mount calls it at scope close or on rejection. */
export interface MountedServer {
  readonly progress: ServerProgress;
  /** The live view, read when /mcp is rendered: a connection can still drop after mounting. */
  current?(): ServerProgress & { failure?: string | undefined };
  close(): Promise<void>;
}

/** Thrown by a connector when its server failed; carries the redacted stderr tail. */
export class ServerMountError extends ClatError<'MOUNT_FAILED'> {
  readonly stderrTail: string[];
  /** Set when the server only needs an OAuth login: the command that does it. */
  readonly loginCommand: string | undefined;

  constructor(message: string, stderrTail: string[] = [], loginCommand?: string) {
    super('MOUNT_FAILED', message);
    this.name = 'ServerMountError';
    this.stderrTail = stderrTail;
    this.loginCommand = loginCommand;
  }
}

/** Connects servers of some transports. Throwing fails only that server. */
export interface ServerConnector {
  readonly transports: readonly TransportKind[];
  mount(request: ServerMountRequest): Promise<MountedServer>;
}

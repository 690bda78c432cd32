/**
 * The public shapes of McpClient: its options and what it returns (server info, tool and prompt
 * descriptors, tool results).
 * @module
 */
import type { HostServices, ToolProgress } from '@clat/kernel';
import type { McpClientInfo, McpTimeouts } from './protocol.js';
import type { ServerLog } from './server-log.js';
import type { TaskLimits } from './task-call.js';
import type { TransportFactory } from './transport.js';
import type { UrlOpener } from './url-elicitation.js';

export interface McpServerInfo {
  name: string;
  version: string;
  title?: string;
}

/** A tool as listed by the server, normalized (missing schema → `{type: "object"}`). */
export interface McpToolDescriptor {
  name: string;
  title?: string;
  description: string;
  inputSchema: Record<string, unknown>;
  outputSchema?: Record<string, unknown>;
  annotations?: Record<string, unknown>;
  /** `execution.taskSupport`: whether calls may (`optional`) or must (`required`) be tasks. */
  taskSupport?: 'required' | 'optional' | 'forbidden';
}

export interface McpPromptDescriptor {
  name: string;
  description?: string;
  arguments?: unknown[];
  _meta?: Record<string, unknown>;
}

export type { McpCallToolResult } from './call-result.js';

export interface McpClientOptions {
  /** Configured server name (also the host-services caller id). */
  name: string;
  factory: TransportFactory;
  /** The host behind sampling, elicitation and `io.artec.clat/*`; absent → none declared. */
  hostServices?: HostServices | undefined;
  /** The trusted project root, offered as the one MCP root; absent → `roots` not declared. */
  projectRoot?: string | undefined;
  /** Opens the URL of a consented URL-mode elicitation (the person's browser). */
  openUrl?: UrlOpener | undefined;
  clientInfo?: McpClientInfo | undefined;
  /** Aborts the connect attempt (not the connection once established). */
  signal?: AbortSignal | undefined;
  onDiagnostic?: ((message: string) => void) | undefined;
  /**
   * A listed tool left out, and why (`tool "x" of MCP server "y" skipped: …`: no name, a schema
   * that cannot be offered, an invalid header declaration); the mount shows it as a warning of
   * the server. Defaults to `onDiagnostic`.
   */
  onSkippedTool?: ((message: string) => void) | undefined;
  /** Shorter deadlines for tests; production uses LIMITS. */
  timeouts?: Partial<McpTimeouts> | undefined;
  /**
   * `legacy` when this configuration negotiated the legacy era before: the first process goes
   * straight to `initialize` (no probe, so still no process sees both); if that handshake fails,
   * a fresh process is probed as usual.
   */
  eraHint?: 'legacy' | undefined;
  /**
   * Where the server's log messages go (a mount passes its own, so the tail outlives a restart);
   * default: a log of the client's own.
   */
  log?: ServerLog | undefined;
}

export interface McpCallOptions {
  signal?: AbortSignal | undefined;
  /** Progress reports and task statuses of this call (messages are untrusted text). */
  onProgress?: ((update: ToolProgress) => void) | undefined;
  /** Run the call as a task (tools/call with `task`, then tasks/get and tasks/result). */
  task?: boolean | undefined;
  /** Test overrides of the task polling limits. */
  taskLimits?: Partial<TaskLimits> | undefined;
}

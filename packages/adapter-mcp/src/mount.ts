/**
 * mountMcpServer: connects one configured server and registers its tools (`mcp_{server}_{tool}`)
 * and its marked DSH system prompts as leases on the server's own scope. Its status is the
 * kernel's `MountReport` (`MountProgress` plus the connection state), with texts as the server
 * and client wrote them. The host owns the policies around it: redaction of every status text,
 * the first-run freeze (a frozen registry's error propagates), and the scope that revokes and
 * closes.
 * @module
 */
import {
  effectFromAnnotations,
  errorMessage,
  type HostServices,
  isJsonObject,
  isKernelError,
  type JsonObject,
  KernelErrorCode,
  type Lease,
  LIMITS,
  type MountLogEntry,
  type MountReport,
  type MountReportState,
  type PromptRegistry,
  qualifyToolName,
  type Scope,
  type Tool,
  type ToolRegistry,
  type ToolResult,
  type ToolSourceRef,
  utf8Length,
} from '@clat/kernel';
import { type McpCallToolResult, toToolResult } from './call-result.js';
import { McpClient, type McpToolDescriptor } from './client.js';
import { isMcpError, McpError, McpErrorCode } from './errors.js';
import { DSH_SYSTEM_PROMPT_META } from './host-services-wire.js';
import { MCP_LIMITS } from './limits.js';
import { promptText, type TaskSupport, taskSupportText } from './mount-text.js';
import type { McpClientInfo, McpTimeouts } from './protocol.js';
import { ServerLog } from './server-log.js';
import { ServerRestarts } from './server-restarts.js';
import { type ToolListChange, ToolListSync } from './tool-list-sync.js';
import type { TransportFactory } from './transport.js';
import type { UrlOpener } from './url-elicitation.js';

export type McpServerState = MountReportState;

/**
 * One server's status: the kernel's `MountReport` (the host folds it into `MountStatus` as it
 * is) plus its prompt counts and log tail. Texts are unredacted: the host's redactor cleans them
 * (the log tail's already went through the key-shape redaction the stderr tail gets).
 */
export interface McpServerStatus extends MountReport {
  /** MCP prompts the server lists (`prompts/list` when it mounted), what `clat prompts` offers. */
  prompts: number;
  /** Marked DSH system prompts registered in the prompt registry. */
  systemPrompts: number;
  /** The server's newest log messages, oldest first (each connection's, across restarts). */
  logTail: MountLogEntry[];
}

export interface MountMcpServerOptions {
  name: string;
  factory: TransportFactory;
  registry: ToolRegistry;
  prompts: PromptRegistry;
  /**
   * This server's own scope (a host gives `projectScope.pluginScope(name)`): it owns every
   * registration and the connection. Closing it revokes them (reverse order), then closes the
   * connection; a failed mount closes it.
   */
  scope: Scope;
  hostServices?: HostServices | undefined;
  /**
   * The trusted project root: offered as the connection's one MCP root (`roots/list`) and passed
   * to marked prompts as the `cwd` argument.
   */
  projectRoot: string;
  /** Opens the URL of a consented URL-mode elicitation. */
  openUrl?: UrlOpener | undefined;
  /** `false`: do not offer the project root as an MCP root (the entry's `"roots": false`). */
  offerRoots?: boolean | undefined;
  /** The entry's arguments name paths (see `argumentsNamePaths`); status says so with its roots. */
  pathArguments?: boolean | undefined;
  clientInfo?: McpClientInfo | undefined;
  signal?: AbortSignal | undefined;
  /** Skip the modern probe for a configuration known to be legacy (see McpClientOptions). */
  eraHint?: 'legacy' | undefined;
  /** The entry's includeTools/excludeTools: tools it refuses are listed but not registered. */
  toolFilter?: ((tool: string) => boolean) | undefined;
  /** Why `toolFilter` leaves tools out, for the status note (default: the entry's filters). */
  leftOutBecause?: string | undefined;
  /**
   * The person can set includeTools/excludeTools in the server's mcp.json entry (not so for an
   * installed package's): only then does the error of a server over the tool cap suggest it.
   */
  narrowable?: boolean | undefined;
  /** Every status change (a host passes its `onProgress`); texts are unredacted. */
  onStatus?: ((status: McpServerStatus) => void) | undefined;
  /** Client diagnostics, unredacted: the receiver redacts them like any status text. */
  onDiagnostic?: ((message: string) => void) | undefined;
  timeouts?: Partial<McpTimeouts> | undefined;
  /** What messages call the program to restart (the host's `hostName`; default `CLAT`). */
  hostName?: string | undefined;
}

export interface MountedMcpServer {
  readonly name: string;
  /** The connected client; undefined when connecting failed. */
  readonly client: McpClient | undefined;
  status(): McpServerStatus;
  /** Closes the server's scope: its leases are revoked (reverse order), then the connection. */
  close(): Promise<void>;
}

function quoted(value: string): string {
  return JSON.stringify(value);
}

/**
 * Connects, lists and registers one server. Never throws for server failures: the returned
 * handle's status says `failed` with the reason, and its scope is closed, so nothing of that
 * server stays registered (a prompt failure alone keeps the tools). A frozen registry is not a
 * server failure: its REGISTRY_FROZEN error propagates (after the scope closed) for the host to
 * report.
 */
export async function mountMcpServer(options: MountMcpServerOptions): Promise<MountedMcpServer> {
  const { name, registry, prompts, scope } = options;
  const source: ToolSourceRef = { kind: 'mcp', id: name };
  const status: McpServerStatus = {
    state: 'connecting',
    phase: 'connecting',
    tools: 0,
    prompts: 0,
    systemPrompts: 0,
    warnings: [],
    stderrTail: [],
    logTail: [],
  };
  // One log for every connection of the mount: what a crashed server logged stays shown.
  const log = new ServerLog();
  // Closing the scope also stops a connect or listing still in progress.
  const stop = new AbortController();
  const signal =
    options.signal === undefined ? stop.signal : AbortSignal.any([options.signal, stop.signal]);
  let client: McpClient | undefined;
  let closing = false;

  const snapshot = (): McpServerStatus => {
    status.logTail = log.entries();
    if (client !== undefined) {
      status.stderrTail = client.diagnostics().tail;
      status.roots = { offered: client.rootsOffered, requests: client.rootsRequests };
      if (options.pathArguments === true) status.roots.pathArguments = true;
      const getStream = client.getStreamState;
      if (getStream !== undefined) status.getStream = getStream;
    }
    return structuredClone(status);
  };
  const diagnostic = (message: string): void => {
    options.onDiagnostic?.(message);
  };
  const emit = (): void => {
    try {
      options.onStatus?.(snapshot());
    } catch (error) {
      diagnostic(`onStatus of ${quoted(name)} failed: ${errorMessage(error)}`);
    }
  };
  const note = (message: string): void => {
    status.warnings.push(message);
    diagnostic(message);
  };
  // The scope's last close step: its leases were revoked before it (LIFO).
  const closeConnection = async (): Promise<void> => {
    closing = true;
    stop.abort('the MCP server is being closed');
    status.tools = 0;
    status.prompts = 0;
    status.systemPrompts = 0;
    await client?.close().catch((error: unknown) => {
      diagnostic(`closing MCP server ${quoted(name)} failed: ${errorMessage(error)}`);
    });
    if (status.state !== 'failed') status.state = 'closed';
    delete status.phase;
    emit();
  };
  const fail = async (error: unknown): Promise<void> => {
    status.state = 'failed';
    status.failure = errorMessage(error);
    if (isMcpError(error) && error.stderrTail.length > 0) status.stderrTail = [...error.stderrTail];
    await scope.close().catch((closeError: unknown) => {
      diagnostic(`closing the scope of ${quoted(name)} failed: ${errorMessage(closeError)}`);
    });
  };
  const handle: MountedMcpServer = {
    name,
    get client() {
      return client;
    },
    status: snapshot,
    close: () => scope.close(),
  };

  emit();
  try {
    scope.onClose(closeConnection, `MCP server ${name}`);
  } catch (error) {
    // The scope closed before the mount began: nothing was opened.
    status.state = 'failed';
    status.failure = errorMessage(error);
    delete status.phase;
    emit();
    return handle;
  }

  const connect = (eraHint: 'legacy' | undefined): Promise<McpClient> =>
    McpClient.connect({
      name,
      factory: options.factory,
      hostServices: options.hostServices,
      projectRoot: options.offerRoots === false ? undefined : options.projectRoot,
      openUrl: options.openUrl,
      clientInfo: options.clientInfo,
      signal,
      onDiagnostic: diagnostic,
      // Each list (the first, and each after a list_changed) says it again: noted once.
      onSkippedTool: (message) => {
        if (!status.warnings.includes(message)) note(message);
      },
      timeouts: options.timeouts,
      eraHint,
      log,
    });
  try {
    client = await connect(options.eraHint);
  } catch (error) {
    if (!closing) await fail(error);
    return handle;
  }
  if (closing) {
    // The scope closed while connecting: nothing may stay open or registered.
    await client.close().catch(() => {});
    return handle;
  }
  status.era = client.era;
  status.protocolVersion = client.protocolVersion;
  // Shown when the server answered on another transport than configured (HTTP+SSE fallback).
  if (client.transportKind !== options.factory.kind) status.transport = client.transportKind;
  /** The live connection: replaced when a server that closed is restarted (see server-restarts.ts). */
  let connected = client;
  const restarts = new ServerRestarts(name, restart, options.hostName);
  watch(connected);

  /** How each listed tool counts in the task support `/mcp` shows; the counts derive from it. */
  const taskKinds = new Map<string, 'required' | 'optional' | 'excluded'>();
  const sync = new ToolListSync({
    server: name,
    list: async () => (await connected.listTools(signal)).filter(allowedByEntry),
    register: (tool) => {
      try {
        return registerTool(tool);
      } catch (error) {
        // Frozen between the check and this registration: the change waits for a restart.
        note(`tool ${quoted(tool.name)} of ${quoted(name)} skipped: ${errorMessage(error)}`);
        return undefined;
      }
    },
    forget: (tool) => {
      taskKinds.delete(tool);
    },
    frozen: () => registry.frozen,
    active: () => !closing && status.state === 'connected',
    onChange: (change) => listChanged(change),
    onDiagnostic: diagnostic,
    signal,
  });
  let tools: McpToolDescriptor[];
  try {
    tools = await connected.listTools(signal);
  } catch (error) {
    if (!closing) await fail(error);
    return handle;
  }

  if (closing) return handle;
  try {
    // The cap counts what the entry keeps: a large server narrowed by its filters still mounts.
    const kept = tools.filter(allowedByEntry);
    // Left out by the entry's includeTools/excludeTools, reported as one note.
    const filtered = tools.length - kept.length;
    if (kept.length > LIMITS.toolsPerServer) throw overToolCap(tools.length, kept.length);
    for (const tool of kept) sync.track(tool, registerTool(tool));
    status.tools = sync.registered;
    updateTasks();
    if (filtered > 0) {
      const why = options.leftOutBecause ?? 'by includeTools/excludeTools';
      note(`${filtered} tool${filtered === 1 ? '' : 's'} of ${quoted(name)} left out ${why}`);
    }
    await importPrompts();
  } catch (error) {
    await fail(error);
    // The freeze is the host's policy: it reports the server, in one sentence of its own.
    if (isFrozen(error)) throw error;
    return handle;
  }
  if (closing) return handle;
  status.state = 'connected';
  delete status.phase;
  // Only legacy servers push list changes to CLAT (see tool-list-sync.ts).
  if (connected.era === 'legacy') connected.onToolListChanged(() => sync.changed());
  emit();
  return handle;

  /** Follows one connection: its GET stream state, and a close that is not CLAT's. */
  function watch(connection: McpClient): void {
    connection.onGetStreamState(() => {
      if (!closing && connection === connected) emit();
    });
    connection.onClose((error) => {
      if (closing || connection !== connected || status.state !== 'connected') return;
      status.state = 'failed';
      status.failure = restartPromise(error.message);
      emit();
    });
  }

  /** The connection for a call after the last one closed: a restart, shared by concurrent calls. */
  function restarted(): Promise<McpClient> {
    const closed =
      connected.closeError ??
      new McpError(McpErrorCode.MCP_CONNECTION_CLOSED, `MCP server ${quoted(name)} closed`, {
        server: name,
      });
    if (closing) return Promise.reject(closed);
    return restarts.next(closed).catch((error: unknown) => {
      // Still down: the status says why, and whether a later call will try again.
      if (!closing && connected.closed) {
        status.failure = restartPromise(errorMessage(error));
        emit();
      }
      throw error;
    });
  }

  /** A failure text, with the promise of a restart while one is left. */
  function restartPromise(failure: string): string {
    return restarts.count < MCP_LIMITS.serverRestarts
      ? `${failure}; the next call of one of its tools starts it again`
      : failure;
  }

  /** Opens a new connection in the era the last one spoke, and makes it the live one. */
  async function restart(): Promise<McpClient> {
    const previous = connected;
    const next = await connect(previous.era === 'legacy' ? 'legacy' : undefined);
    if (closing) {
      await next.close().catch(() => {});
      throw new McpError(McpErrorCode.MCP_CLIENT_CLOSED, 'the MCP server is being closed', {
        server: name,
      });
    }
    connected = next;
    client = next;
    watch(next);
    if (next.era === 'legacy') next.onToolListChanged(() => sync.changed());
    status.state = 'connected';
    delete status.failure;
    status.era = next.era;
    status.protocolVersion = next.protocolVersion;
    const why = previous.closeError?.message ?? `MCP server ${quoted(name)} closed the connection`;
    const text = `${why}; CLAT restarted it for the next call (restart ${restarts.count} of ${MCP_LIMITS.serverRestarts} this session)`;
    // One line per server: the latest restart.
    const at = status.warnings.findIndex((line) => line.includes('; CLAT restarted it for'));
    if (at >= 0) status.warnings[at] = text;
    else status.warnings.push(text);
    diagnostic(text);
    emit();
    // A restarted server may list other tools: checked like a list change (after a freeze the
    // registered tools stay and the status says the list changed).
    sync.changed();
    return next;
  }

  function updateTasks(): void {
    const tasks: TaskSupport = {
      offered: connected.tasksOffered,
      required: 0,
      optional: 0,
      excluded: 0,
    };
    for (const kind of taskKinds.values()) tasks[kind]++;
    if (tasks.offered || tasks.excluded > 0 || tasks.required > 0) {
      status.tasks = taskSupportText(tasks);
    } else delete status.tasks;
  }

  /** The warning that the list changed after the freeze: one per server, the latest change. */
  function listChanged(change: ToolListChange): void {
    const parts: string[] = [];
    if (change.added.length > 0) parts.push(`${change.added.length} added`);
    if (change.removed.length > 0) parts.push(`${change.removed.length} removed`);
    if (change.changed.length > 0) parts.push(`${change.changed.length} changed`);
    const what = `the tool list of ${quoted(name)} changed (${parts.join(', ')})`;
    if (change.frozen) {
      const text = `${what} after the registries froze; restart ${options.hostName ?? 'CLAT'} to use the new list`;
      const at = status.warnings.findIndex((line) =>
        line.startsWith(`the tool list of ${quoted(name)} changed`),
      );
      if (at >= 0) status.warnings[at] = text;
      else status.warnings.push(text);
      diagnostic(text);
    } else {
      status.tools = sync.registered;
      updateTasks();
      diagnostic(`${what}; registered again`);
    }
    emit();
  }

  function allowedByEntry(tool: McpToolDescriptor): boolean {
    return options.toolFilter?.(tool.name) !== false;
  }

  function overToolCap(listed: number, kept: number): McpError {
    const count =
      kept === listed
        ? `lists ${listed} tools`
        : `keeps ${kept} of its ${listed} tools after includeTools/excludeTools`;
    const hint =
      options.narrowable === true
        ? '; narrow them with "includeTools" or "excludeTools" in its mcp.json entry'
        : '';
    return new McpError(
      McpErrorCode.MCP_LIST_LIMIT,
      `MCP server ${quoted(name)} ${count}, over the limit of ${LIMITS.toolsPerServer} per server${hint}`,
      { server: name },
    );
  }

  /** Registers one listed tool; its lease, or undefined when it was skipped (with a note). */
  function registerTool(tool: McpToolDescriptor): Lease | undefined {
    let qualified: string;
    try {
      qualified = qualifyToolName('mcp', name, tool.name);
    } catch (error) {
      note(`tool ${quoted(tool.name)} of ${quoted(name)} skipped: ${errorMessage(error)}`);
      return undefined;
    }
    const asTask = tool.taskSupport === 'required';
    if (asTask && !connected.tasksOffered) {
      // The tool cannot run without a task and this connection has none: calling it would fail.
      taskKinds.set(tool.name, 'excluded');
      note(
        `tool ${quoted(tool.name)} of ${quoted(name)} left out: it requires task-augmented calls, which ${connected.era === 'modern' ? `CLAT does not support in the ${connected.era} era` : 'the server does not offer (no tasks.requests.tools.call capability)'}`,
      );
      return undefined;
    }
    const toResult = (result: McpCallToolResult): ToolResult => toToolResult(tool.name, result);
    const kernelTool: Tool = {
      definition: {
        name: qualified,
        description: tool.description,
        inputSchema: tool.inputSchema as JsonObject,
        effect: effectFromAnnotations(tool.annotations),
        source,
        sourceName: tool.name,
      },
      // A plain promise chain with one reader per tool: no async frame per call.
      invoke: (args, ctx) => {
        const call = { signal: ctx.signal, onProgress: ctx.progress, task: asTask };
        if (!connected.closed) return connected.callTool(tool.name, args, call).then(toResult);
        return restarted()
          .then((next) => next.callTool(tool.name, args, call))
          .then(toResult);
      },
    };
    try {
      const lease = registry.register(kernelTool, scope);
      if (asTask) taskKinds.set(tool.name, 'required');
      else if (tool.taskSupport === 'optional') taskKinds.set(tool.name, 'optional');
      return lease;
    } catch (error) {
      if (isFrozen(error)) throw error;
      note(`tool ${quoted(tool.name)} of ${quoted(name)} skipped: ${errorMessage(error)}`);
      return undefined;
    }
  }

  async function importPrompts(): Promise<void> {
    if (!isJsonObject(connected.serverCapabilities.prompts)) return;
    try {
      const listed = await connected.listPrompts(signal);
      status.prompts = listed.length;
      const marked = listed.filter((prompt) => prompt._meta?.[DSH_SYSTEM_PROMPT_META] === true);
      if (marked.length > MCP_LIMITS.dshPromptsPerServer) {
        throw new McpError(
          McpErrorCode.MCP_LIST_LIMIT,
          `MCP server ${quoted(name)} marks ${marked.length} DSH system prompts, over the limit of ${MCP_LIMITS.dshPromptsPerServer}`,
          { server: name },
        );
      }
      // One prompt that fails (too large, refused, unregistrable) costs that prompt only.
      for (const prompt of marked) {
        try {
          const result = await connected.getPrompt(
            prompt.name,
            { cwd: options.projectRoot },
            { signal },
          );
          const text = promptText(result);
          const bytes = utf8Length(text);
          if (bytes > MCP_LIMITS.dshPromptBytes) {
            throw new McpError(
              McpErrorCode.MCP_RESULT_TOO_LARGE,
              `resolved to ${bytes} bytes, over the limit of ${MCP_LIMITS.dshPromptBytes}`,
              { server: name },
            );
          }
          if (text.trim() === '') continue;
          const contribution = { name: qualifyToolName('mcp', name, prompt.name), source, text };
          prompts.register(contribution, scope);
          status.systemPrompts++;
        } catch (error) {
          if (isFrozen(error) || signal?.aborted === true) throw error;
          note(
            `DSH system prompt ${quoted(prompt.name)} of ${quoted(name)} skipped: ${errorMessage(error)}`,
          );
        }
      }
    } catch (error) {
      if (isFrozen(error)) throw error;
      // A prompt failure is reported; the server's tools stay registered.
      note(errorMessage(error));
    }
  }
}

function isFrozen(error: unknown): boolean {
  return isKernelError(error) && error.code === KernelErrorCode.REGISTRY_FROZEN;
}

/**
 * mountMcpServer: connects one configured server, registers its tools (`mcp_{server}_{tool}`) and
 * its marked DSH system prompts as leases on a kernel Scope, and keeps a status for `/mcp`.
 * @module
 */
import {
  ClatError,
  effectFromAnnotations,
  errorMessage,
  type HostServices,
  isJsonObject,
  isKernelError,
  type JsonObject,
  KernelErrorCode,
  type Lease,
  type PromptRegistry,
  qualifyToolName,
  type Redactor,
  redactSecrets,
  type Scope,
  type Tool,
  type ToolRegistry,
  type ToolResult,
  type ToolSourceRef,
  utf8Length,
} from '@clat/kernel';
import { toToolResult } from './call-result.js';
import { McpClient, type McpServerInfo, type McpToolDescriptor } from './client.js';
import { isMcpError, McpError, McpErrorCode } from './errors.js';
import { DSH_SYSTEM_PROMPT_META, SYSTEM_PROMPT_META } from './host-services-wire.js';
import { MCP_LIMITS } from './limits.js';
import type { McpClientInfo, McpEra, McpTimeouts } from './protocol.js';
import type { GetStreamState, TransportFactory, TransportKind } from './transport.js';
import type { UrlOpener } from './url-elicitation.js';

export type McpServerState = 'connecting' | 'connected' | 'failed' | 'rejected' | 'closed';

/** One server's line in `/mcp`. Every text is redacted. */
export interface McpServerStatus {
  name: string;
  transport: TransportKind;
  state: McpServerState;
  era?: McpEra;
  protocolVersion?: string;
  serverInfo?: McpServerInfo;
  /** Tools registered in the kernel registry. */
  tools: number;
  /** Marked DSH system prompts registered in the prompt registry. */
  prompts: number;
  /** Why the server failed or was rejected. */
  error?: string;
  /** Why prompt import failed (the server's tools stay). */
  promptError?: string;
  /** Per-tool and per-prompt notes: collisions, skipped names, cut descriptions. */
  notes: string[];
  /** Newest stderr lines of a stdio server, redacted. */
  stderrTail: string[];
  /** The standalone GET stream of a Streamable HTTP connection; absent for other transports. */
  getStream?: GetStreamState;
  /** Whether CLAT offered the project root as an MCP root, and how often the server asked. */
  roots?: McpRootsStatus;
  /** Task support (2025-11-25 tasks): whether the server offers it and how its tools use it. */
  tasks?: McpTaskSupport;
}

/** Roots support of one connection, for `/mcp`. */
export interface McpRootsStatus {
  offered: boolean;
  requests: number;
}

export interface McpTaskSupport {
  /** The server offers task-augmented tools/call. */
  offered: boolean;
  /** Registered tools that run as tasks (`taskSupport: required`). */
  required: number;
  /** Registered tools that may run as tasks; CLAT calls them plainly. */
  optional: number;
  /** Tools that require tasks but were left out (the server does not offer tasks). */
  excluded: number;
}

export interface MountMcpServerOptions {
  name: string;
  factory: TransportFactory;
  registry: ToolRegistry;
  prompts: PromptRegistry;
  /** Owns every registration; closing it revokes them (reverse order) and closes the client. */
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
  clientInfo?: McpClientInfo | undefined;
  signal?: AbortSignal | undefined;
  /** Skip the modern probe for a configuration known to be legacy (see McpClientOptions). */
  eraHint?: 'legacy' | undefined;
  /** The entry's includeTools/excludeTools: tools it refuses are listed but not registered. */
  toolFilter?: ((tool: string) => boolean) | undefined;
  onStatus?: ((status: McpServerStatus) => void) | undefined;
  onDiagnostic?: ((message: string) => void) | undefined;
  /** Known secrets (HTTP header values) to redact from status texts. */
  redactor?: Redactor | undefined;
  timeouts?: Partial<McpTimeouts> | undefined;
}

export interface MountedMcpServer {
  readonly name: string;
  /** The connected client; undefined when connecting failed. */
  readonly client: McpClient | undefined;
  status(): McpServerStatus;
  /** Revokes prompt and tool leases (reverse order), then closes the connection. Idempotent. */
  close(): Promise<void>;
}

const PROMPT_TEXT_SEPARATOR = '\n\n';

function quoted(value: string): string {
  return JSON.stringify(value);
}

/** The resolved text of a marked prompt: `_meta` system prompt, else text messages. */
function promptText(result: Record<string, unknown>): string {
  const meta = isJsonObject(result._meta) ? result._meta : {};
  const direct = meta[SYSTEM_PROMPT_META];
  if (typeof direct === 'string') return direct;
  const messages = Array.isArray(result.messages) ? result.messages : [];
  const texts: string[] = [];
  for (const message of messages) {
    if (!isJsonObject(message)) continue;
    const blocks = Array.isArray(message.content) ? message.content : [message.content];
    for (const block of blocks) {
      if (isJsonObject(block) && block.type === 'text' && typeof block.text === 'string') {
        texts.push(block.text);
      }
    }
  }
  return texts.join(PROMPT_TEXT_SEPARATOR);
}

/** The registry froze before this server's tools or prompts were registered; `kind` says which. */
class FrozenRegistryError extends ClatError<typeof McpErrorCode.MCP_REGISTRY_FROZEN> {
  readonly kind: 'tool' | 'prompt';

  constructor(kind: 'tool' | 'prompt') {
    super(McpErrorCode.MCP_REGISTRY_FROZEN, `the ${kind} registry froze`);
    this.name = 'FrozenRegistryError';
    this.kind = kind;
  }
}

/**
 * Connects, lists and registers one server. Never throws for server failures: the returned
 * handle's status says `failed` or `rejected` with a redacted reason, and nothing of that server
 * stays registered (a prompt failure alone keeps the tools).
 */
export async function mountMcpServer(options: MountMcpServerOptions): Promise<MountedMcpServer> {
  const { name, registry, prompts, scope } = options;
  /** Tools the entry's includeTools/excludeTools left out, reported as one note. */
  let filtered = 0;
  const source: ToolSourceRef = { kind: 'mcp', id: name };
  const redact = (text: string): string =>
    options.redactor === undefined ? redactSecrets(text) : options.redactor.redact(text);
  const status: McpServerStatus = {
    name,
    transport: options.factory.kind,
    state: 'connecting',
    tools: 0,
    prompts: 0,
    notes: [],
    stderrTail: [],
  };
  const leases: Lease[] = [];
  // close() also stops a connect or listing still in progress.
  const stop = new AbortController();
  const signal =
    options.signal === undefined ? stop.signal : AbortSignal.any([options.signal, stop.signal]);
  let client: McpClient | undefined;
  let closing: Promise<void> | undefined;

  const snapshot = (): McpServerStatus => {
    if (client !== undefined) {
      status.stderrTail = client.diagnostics().tail.map(redact);
      status.roots = { offered: client.rootsOffered, requests: client.rootsRequests };
      const getStream = client.getStreamState;
      if (getStream !== undefined) status.getStream = getStream;
    }
    return structuredClone(status);
  };
  const emit = (): void => {
    try {
      options.onStatus?.(snapshot());
    } catch (error) {
      diagnostic(`onStatus of ${quoted(name)} failed: ${errorMessage(error)}`);
    }
  };
  const diagnostic = (message: string): void => {
    options.onDiagnostic?.(redact(message));
  };
  const note = (message: string): void => {
    status.notes.push(redact(message));
    diagnostic(message);
  };
  const revoke = async (): Promise<void> => {
    for (const lease of leases.splice(0).reverse()) {
      await lease.release().catch((error: unknown) => {
        diagnostic(`revoking ${lease.owner} failed: ${errorMessage(error)}`);
      });
    }
    status.tools = 0;
    status.prompts = 0;
  };
  const close = (): Promise<void> => {
    closing ??= (async () => {
      stop.abort('the MCP server is being closed');
      await revoke();
      await client?.close().catch((error: unknown) => {
        diagnostic(`closing MCP server ${quoted(name)} failed: ${errorMessage(error)}`);
      });
      if (status.state === 'connected' || status.state === 'connecting') status.state = 'closed';
      emit();
    })();
    return closing;
  };
  const fail = async (state: 'failed' | 'rejected', error: unknown): Promise<void> => {
    await revoke();
    status.state = state;
    status.error = redact(errorMessage(error));
    if (isMcpError(error) && error.stderrTail.length > 0) {
      status.stderrTail = error.stderrTail.map(redact);
    }
    await client?.close().catch(() => {});
    emit();
  };
  const handle: MountedMcpServer = {
    name,
    get client() {
      return client;
    },
    status: snapshot,
    close,
  };

  emit();
  // Close the connection after every lease of this server is revoked (scope close is LIFO).
  try {
    scope.onClose(() => close(), `MCP server ${name}`);
  } catch (error) {
    await fail('rejected', error);
    return handle;
  }

  try {
    client = await McpClient.connect({
      name,
      factory: options.factory,
      hostServices: options.hostServices,
      projectRoot: options.offerRoots === false ? undefined : options.projectRoot,
      openUrl: options.openUrl,
      clientInfo: options.clientInfo,
      signal,
      onDiagnostic: diagnostic,
      timeouts: options.timeouts,
      eraHint: options.eraHint,
    });
  } catch (error) {
    if (closing !== undefined) return handle;
    await fail('failed', error);
    return handle;
  }
  if (closing !== undefined) {
    // The scope closed while connecting: nothing may stay open or registered.
    await client.close().catch(() => {});
    return handle;
  }
  status.era = client.era;
  status.protocolVersion = client.protocolVersion;
  status.serverInfo = { ...client.serverInfo };
  const connected = client;
  connected.onClose((error) => {
    if (closing !== undefined || status.state !== 'connected') return;
    status.state = 'failed';
    status.error = redact(error.message);
    emit();
  });

  const taskSupport: McpTaskSupport = {
    offered: connected.tasksOffered,
    required: 0,
    optional: 0,
    excluded: 0,
  };
  let tools: McpToolDescriptor[];
  try {
    tools = await connected.listTools(signal);
  } catch (error) {
    await fail('failed', error);
    return handle;
  }

  if (closing !== undefined) {
    await connected.close().catch(() => {});
    return handle;
  }
  try {
    if (registry.frozen) throw new FrozenRegistryError('tool');
    for (const tool of tools) registerTool(tool);
    if (taskSupport.offered || taskSupport.excluded > 0 || taskSupport.required > 0) {
      status.tasks = taskSupport;
    }
    if (filtered > 0) {
      note(
        `${filtered} tool${filtered === 1 ? '' : 's'} of ${quoted(name)} left out by includeTools/excludeTools`,
      );
    }
    await importPrompts();
  } catch (error) {
    if (error instanceof FrozenRegistryError || isFrozen(error)) {
      await fail(
        'rejected',
        new McpError(
          McpErrorCode.MCP_REGISTRY_FROZEN,
          `MCP server ${quoted(name)} finished after the ${error instanceof FrozenRegistryError ? error.kind : 'tool'} registry froze for the first run; restart CLAT after fixing or warming it`,
          { server: name, cause: error },
        ),
      );
      return handle;
    }
    await fail('failed', error);
    return handle;
  }
  if (closing !== undefined) return handle;
  status.state = 'connected';
  emit();
  return handle;

  function registerTool(tool: McpToolDescriptor): void {
    if (options.toolFilter !== undefined && !options.toolFilter(tool.name)) {
      filtered++;
      return;
    }
    let qualified: string;
    try {
      qualified = qualifyToolName('mcp', name, tool.name);
    } catch (error) {
      note(`tool ${quoted(tool.name)} of ${quoted(name)} skipped: ${errorMessage(error)}`);
      return;
    }
    const asTask = tool.taskSupport === 'required';
    if (asTask && !connected.tasksOffered) {
      // The tool cannot run without a task and this connection has none: calling it would fail.
      taskSupport.excluded++;
      note(
        `tool ${quoted(tool.name)} of ${quoted(name)} left out: it requires task-augmented calls, which ${connected.era === 'modern' ? `CLAT does not support in the ${connected.era} era` : 'the server does not offer (no tasks.requests.tools.call capability)'}`,
      );
      return;
    }
    const kernelTool: Tool = {
      definition: {
        name: qualified,
        description: tool.description,
        inputSchema: tool.inputSchema as JsonObject,
        effect: effectFromAnnotations(tool.annotations),
        source,
        sourceName: tool.name,
      },
      invoke: async (args, ctx) =>
        toToolResult(
          tool.name,
          await connected.callTool(tool.name, args, {
            signal: ctx.signal,
            onProgress: ctx.progress,
            task: asTask,
          }),
        ),
    };
    try {
      leases.push(registry.register(kernelTool, scope));
      status.tools++;
      if (asTask) taskSupport.required++;
      else if (tool.taskSupport === 'optional') taskSupport.optional++;
    } catch (error) {
      if (isFrozen(error)) throw error;
      note(`tool ${quoted(tool.name)} of ${quoted(name)} skipped: ${errorMessage(error)}`);
    }
  }

  async function importPrompts(): Promise<void> {
    if (!isJsonObject(connected.serverCapabilities.prompts)) return;
    try {
      const listed = await connected.listPrompts(signal);
      const marked = listed.filter((prompt) => prompt._meta?.[DSH_SYSTEM_PROMPT_META] === true);
      if (marked.length > MCP_LIMITS.dshPromptsPerServer) {
        throw new McpError(
          McpErrorCode.MCP_LIST_LIMIT,
          `MCP server ${quoted(name)} marks ${marked.length} DSH system prompts, over the limit of ${MCP_LIMITS.dshPromptsPerServer}`,
          { server: name },
        );
      }
      if (marked.length > 0 && prompts.frozen) throw new FrozenRegistryError('prompt');
      for (const prompt of marked) {
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
            `DSH system prompt ${quoted(prompt.name)} of ${quoted(name)} resolved to ${bytes} bytes, over the limit of ${MCP_LIMITS.dshPromptBytes}`,
            { server: name },
          );
        }
        if (text.trim() === '') continue;
        const contribution = { name: qualifyToolName('mcp', name, prompt.name), source, text };
        try {
          leases.push(prompts.register(contribution, scope));
          status.prompts++;
        } catch (error) {
          if (isFrozen(error)) throw error;
          note(`prompt ${quoted(prompt.name)} of ${quoted(name)} skipped: ${errorMessage(error)}`);
        }
      }
    } catch (error) {
      if (error instanceof FrozenRegistryError || isFrozen(error)) throw error;
      // A prompt failure is reported; the server's tools stay registered.
      status.promptError = redact(errorMessage(error));
      diagnostic(status.promptError);
    }
  }
}

function isFrozen(error: unknown): boolean {
  return isKernelError(error) && error.code === KernelErrorCode.REGISTRY_FROZEN;
}

/**
 * McpClient: one connected MCP server over the kernel Transport port, in either protocol era.
 * Negotiates the era (modern probe, then a fresh legacy handshake), lists tools and prompts with
 * paging limits, calls tools with deadlines and cancellation, and serves server requests.
 * @module
 */
import {
  errorMessage,
  type HostServices,
  isJsonObject,
  LIMITS,
  redactSecrets,
  type ToolProgress,
} from '@clat/kernel';
import { type McpCallToolResult, readCallToolResult } from './call-result.js';
import { isMcpError, McpError, McpErrorCode } from './errors.js';
import { createHostHandlers, type HostHandlers, installHostHandlers } from './host-requests.js';
import { INPUT_ROUND_METHODS, runInputRounds } from './input-rounds.js';
import { MCP_LIMITS } from './limits.js';
import { ProgressRouter } from './progress-router.js';
import {
  CLIENT_NAME,
  clientCapabilities,
  ELICITATION_MIN_LEGACY_VERSION,
  LATEST_LEGACY_PROTOCOL_VERSION,
  LEGACY_PROTOCOL_VERSIONS,
  type McpClientInfo,
  type McpEra,
  type McpTimeouts,
  META,
  MODERN_ERROR_CODES,
  MODERN_PROTOCOL_VERSION,
  modernMeta,
  resolveTimeouts,
  serverAdvertisesHostServices,
  serverOffersToolTasks,
  versionAtLeast,
} from './protocol.js';
import { projectRoots } from './roots.js';
import { type RequestOptions, RpcSession, type SizedResult } from './rpc-session.js';
import { callToolAsTask, type TaskLimits } from './task-call.js';
import {
  type GetStreamState,
  JsonRpcErrorCode,
  type Transport,
  type TransportFactory,
  type TransportKind,
} from './transport.js';
import { type UrlOpener, urlElicitationsRequired, visitRequiredUrls } from './url-elicitation.js';

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
  /** Shorter deadlines for tests; production uses LIMITS. */
  timeouts?: Partial<McpTimeouts> | undefined;
  /**
   * `legacy` when this configuration negotiated the legacy era before: the first process goes
   * straight to `initialize` (no probe, so still no process sees both); if that handshake fails,
   * a fresh process is probed as usual.
   */
  eraHint?: 'legacy' | undefined;
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

const CLIENT_VERSION = '0.1.0';

function quoted(value: string): string {
  return JSON.stringify(value);
}

function readServerInfo(value: unknown): McpServerInfo {
  if (!isJsonObject(value)) return { name: 'unknown', version: 'unknown' };
  const info: McpServerInfo = {
    name: typeof value.name === 'string' ? value.name : 'unknown',
    version: typeof value.version === 'string' ? value.version : 'unknown',
  };
  if (typeof value.title === 'string') info.title = value.title;
  return info;
}

function stderrTail(transport: Transport | undefined): string[] {
  if (transport === undefined) return [];
  try {
    return transport.diagnostics().tail.map((line) => redactSecrets(line));
  } catch {
    return [];
  }
}

function stderrSuffix(transport: Transport | undefined): string {
  const tail = stderrTail(transport);
  if (tail.length === 0) return '';
  const newest = tail
    .slice(-4)
    .reverse()
    .map((line) => redactSecrets(line));
  return `; server stderr: ${newest.join(' | ')}`;
}

interface Negotiated {
  session: RpcSession;
  transport: Transport;
  era: McpEra;
  protocolVersion: string;
  serverInfo: McpServerInfo;
  capabilities: Record<string, unknown>;
  instructions: string | undefined;
}

type ProbeOutcome =
  | { kind: 'modern'; result: Record<string, unknown> }
  | { kind: 'legacy'; reason: string };

export class McpClient {
  readonly name: string;
  readonly transportKind: TransportKind;
  readonly era: McpEra;
  readonly protocolVersion: string;
  readonly serverInfo: McpServerInfo;
  readonly serverCapabilities: Record<string, unknown>;
  readonly instructions: string | undefined;
  /** How many transports connect() opened (probe plus session). */
  readonly transportsOpened: number;
  readonly #session: RpcSession;
  readonly #transport: Transport;
  readonly #clientInfo: McpClientInfo;
  readonly #capabilities: Record<string, unknown>;
  readonly #timeouts: McpTimeouts;
  readonly #onDiagnostic: (message: string) => void;
  readonly #cleanups: (() => void)[] = [];
  readonly #progress = new ProgressRouter();
  readonly #handlers: HostHandlers;
  readonly #rootsServed: { count: number };
  #toolCalls = 0;
  /** The modern per-request `_meta`, built once: it never changes on a connection. */
  #meta: Record<string, unknown> | undefined;
  /** The tools/call deadline extension, built once. */
  readonly #extension: { stepMs: number; totalMs: number };
  #closing: Promise<void> | undefined;
  /** Teardown of a discarded probe transport still in progress. */
  #probeClosing: Promise<void> | undefined;

  private constructor(
    options: McpClientOptions,
    negotiated: Negotiated,
    capabilities: Record<string, unknown>,
    clientInfo: McpClientInfo,
    timeouts: McpTimeouts,
    opened: number,
    handlers: HostHandlers,
    rootsServed: { count: number },
  ) {
    this.name = options.name;
    this.#handlers = handlers;
    this.#rootsServed = rootsServed;
    this.transportKind = options.factory.kind;
    this.era = negotiated.era;
    this.protocolVersion = negotiated.protocolVersion;
    this.serverInfo = negotiated.serverInfo;
    this.serverCapabilities = negotiated.capabilities;
    this.instructions = negotiated.instructions;
    this.transportsOpened = opened;
    this.#session = negotiated.session;
    this.#transport = negotiated.transport;
    this.#clientInfo = clientInfo;
    this.#capabilities = capabilities;
    this.#timeouts = timeouts;
    this.#extension = {
      stepMs: timeouts.toolCallExtensionStepMs,
      totalMs: timeouts.toolCallExtensionTotalMs,
    };
    this.#onDiagnostic = options.onDiagnostic ?? (() => {});
    this.#progress.install(this.#session);
  }

  /**
   * Connects and negotiates the era. Modern `server/discover` first (3 s); on failure the legacy
   * `initialize` handshake (10 s), on a fresh transport when the factory asks for probe
   * isolation. A recognized modern error never falls back.
   */
  static async connect(options: McpClientOptions): Promise<McpClient> {
    const timeouts = resolveTimeouts(options.timeouts);
    const clientInfo = options.clientInfo ?? { name: CLIENT_NAME, version: CLIENT_VERSION };
    const roots = options.projectRoot === undefined ? undefined : projectRoots(options.projectRoot);
    const capabilities = clientCapabilities(
      options.hostServices !== undefined,
      roots !== undefined,
    );
    const server = options.name;
    const onDiagnostic = options.onDiagnostic ?? (() => {});
    const { factory, signal } = options;
    let opened = 0;
    // The handshake must know whether a tools/call is active before the client object exists.
    const hooks: ClientHooks = {
      toolCallActive: () => false,
      elicitation: () => false,
      rootsServed: { count: 0 },
    };
    const handlers = createHostHandlers({
      server,
      host: options.hostServices,
      roots,
      openUrl: options.openUrl,
      onRootsServed: () => hooks.rootsServed.count++,
      serverCapabilities: () => hooks.serverCapabilities?.() ?? {},
      elicitationAllowed: () => hooks.elicitation(),
      toolCallActive: () => hooks.toolCallActive(),
    });
    hooks.handlers = handlers;
    const open = async (): Promise<{ session: RpcSession; transport: Transport }> => {
      opened++;
      let transport: Transport;
      try {
        transport = factory.open();
      } catch (error) {
        throw new McpError(
          McpErrorCode.MCP_HANDSHAKE_FAILED,
          `could not start MCP server ${quoted(server)}: ${errorMessage(error)}`,
          { server, cause: error },
        );
      }
      const session = new RpcSession(transport, { server, onDiagnostic });
      installHostHandlers(session, handlers);
      try {
        await session.start();
      } catch (error) {
        await session.close().catch(() => {});
        throw new McpError(
          McpErrorCode.MCP_HANDSHAKE_FAILED,
          `could not start MCP server ${quoted(server)}: ${errorMessage(error)}${stderrSuffix(transport)}`,
          { server, cause: error, stderrTail: stderrTail(transport) },
        );
      }
      return { session, transport };
    };
    const checkAbort = async (session: RpcSession | undefined): Promise<void> => {
      if (signal?.aborted !== true) return;
      await session?.close().catch(() => {});
      throw new McpError(
        McpErrorCode.MCP_CANCELLED,
        `connecting to MCP server ${quoted(server)} was cancelled`,
        { server, cause: signal.reason },
      );
    };

    await checkAbort(undefined);
    let negotiated: Negotiated | undefined;
    if (options.eraHint === 'legacy') {
      const direct = await open();
      try {
        negotiated = await legacyHandshake(
          server,
          direct,
          clientInfo,
          capabilities,
          timeouts,
          signal,
        );
      } catch (error) {
        await direct.session.close().catch(() => {});
        if (isMcpError(error) && error.code === McpErrorCode.MCP_CANCELLED) throw error;
        onDiagnostic(
          `MCP server ${quoted(server)} was remembered as legacy but initialize failed (${errorMessage(error)}); probing a fresh process`,
        );
      }
    }
    if (negotiated !== undefined) {
      await checkAbort(negotiated.session);
      return McpClient.#finish(
        options,
        negotiated,
        capabilities,
        clientInfo,
        timeouts,
        opened,
        hooks,
      );
    }
    let first = await open();
    let probe: ProbeOutcome;
    try {
      probe = await probeModern(
        first.session,
        factory.kind,
        clientInfo,
        capabilities,
        timeouts,
        signal,
      );
    } catch (error) {
      await first.session.close().catch(() => {});
      throw decorate(error, first.transport);
    }
    await checkAbort(first.session);

    let probeClosing: Promise<void> | undefined;
    if (probe.kind === 'modern') {
      try {
        negotiated = readDiscover(server, first, probe.result);
      } catch (error) {
        await first.session.close().catch(() => {});
        throw decorate(error, first.transport);
      }
    } else {
      onDiagnostic(
        `MCP server ${quoted(server)} is not modern (${probe.reason}); using initialize`,
      );
      if (factory.probeIsolation === 'fresh') {
        // A strict legacy server must never see initialize after an unsupported probe. The probe
        // is torn down in parallel: a server that ignores EOF and SIGTERM would otherwise delay
        // the fresh handshake by its whole grace period. connect() still reaps it before returning
        // a failure, and close() awaits it on success.
        probeClosing = first.session.close().catch(() => {});
        await checkAbort(undefined);
        first = await open().catch(async (error: unknown) => {
          await probeClosing;
          throw error;
        });
      }
      try {
        negotiated = await legacyHandshake(
          server,
          first,
          clientInfo,
          capabilities,
          timeouts,
          signal,
        );
      } catch (error) {
        await Promise.all([first.session.close().catch(() => {}), probeClosing]);
        const cause = isMcpError(error) ? error.message : errorMessage(error);
        if (isMcpError(error) && error.code === McpErrorCode.MCP_CANCELLED) throw error;
        throw new McpError(
          McpErrorCode.MCP_HANDSHAKE_FAILED,
          `MCP server ${quoted(server)} failed both handshakes: modern probe: ${probe.reason}; legacy initialize: ${cause}${stderrSuffix(first.transport)}`,
          { server, cause: error, stderrTail: stderrTail(first.transport) },
        );
      }
    }
    if (signal?.aborted === true) await probeClosing;
    await checkAbort(negotiated.session);
    return McpClient.#finish(
      options,
      negotiated,
      capabilities,
      clientInfo,
      timeouts,
      opened,
      hooks,
      probeClosing,
    );
  }

  /** The client object over a negotiated session, wired to the handshake's hooks. */
  static #finish(
    options: McpClientOptions,
    negotiated: Negotiated,
    capabilities: Record<string, unknown>,
    clientInfo: McpClientInfo,
    timeouts: McpTimeouts,
    opened: number,
    hooks: ClientHooks,
    probeClosing?: Promise<void>,
  ): McpClient {
    const client = new McpClient(
      options,
      negotiated,
      capabilities,
      clientInfo,
      timeouts,
      opened,
      hooks.handlers ?? new Map(),
      hooks.rootsServed,
    );
    if (probeClosing !== undefined) client.#probeClosing = probeClosing;
    hooks.toolCallActive = () => client.#toolCalls > 0;
    hooks.elicitation = () => client.elicitationNegotiated;
    hooks.serverCapabilities = () => client.serverCapabilities;
    client.#startContextPushes(options.hostServices);
    return client;
  }

  /** Elicitation is served from 2025-06-18 (legacy) and on modern connections. */
  get elicitationNegotiated(): boolean {
    return (
      this.era === 'modern' || versionAtLeast(this.protocolVersion, ELICITATION_MIN_LEGACY_VERSION)
    );
  }

  /** Task-augmented tools/call is offered (2025-11-25 tasks utility, legacy era only). */
  get tasksOffered(): boolean {
    return this.era === 'legacy' && serverOffersToolTasks(this.serverCapabilities);
  }

  /** True when CLAT declared `roots` (it knows the project root) on this connection. */
  get rootsOffered(): boolean {
    return this.#handlers.has('roots/list');
  }

  /** How many `roots/list` requests this server made (legacy requests and input requests). */
  get rootsRequests(): number {
    return this.#rootsServed.count;
  }

  /** True when the server echoed the host-services extension at the version CLAT speaks. */
  get hostServicesNegotiated(): boolean {
    return serverAdvertisesHostServices(this.serverCapabilities);
  }

  get closed(): boolean {
    return this.#session.closed;
  }

  /** Why the connection ended, once it has. */
  get closeError(): McpError | undefined {
    return this.#session.closeError;
  }

  /** Called once when the connection ends (server exit, close()). */
  onClose(listener: (error: McpError) => void): () => void {
    return this.#session.onClose(listener);
  }

  /** Host requests pending on this connection (they extend its tools/call deadlines). */
  get pendingHostRequests(): number {
    return this.#session.pendingHostRequests;
  }

  /** The standalone GET stream's state, for transports that have one (Streamable HTTP). */
  get getStreamState(): GetStreamState | undefined {
    return this.#transport.getStreamState?.();
  }

  /** The transport's diagnostics (redacted stderr tail, endpoint). */
  diagnostics(): { tail: string[] } {
    return { tail: stderrTail(this.#transport) };
  }

  /** Lists every tool: ≤ 32 pages of ≤ 30 s each, ≤ 512 tools, a repeated cursor aborts. */
  async listTools(signal?: AbortSignal): Promise<McpToolDescriptor[]> {
    const items = await this.#listAll('tools/list', 'tools', LIMITS.toolsPerServer, signal);
    const tools: McpToolDescriptor[] = [];
    for (const item of items) {
      if (!isJsonObject(item) || typeof item.name !== 'string' || item.name.trim() === '') {
        this.#onDiagnostic(`MCP server ${quoted(this.name)} listed a tool without a name; skipped`);
        continue;
      }
      const tool: McpToolDescriptor = {
        name: item.name,
        description:
          typeof item.description === 'string'
            ? item.description
            : typeof item.title === 'string'
              ? item.title
              : '',
        inputSchema: isJsonObject(item.inputSchema) ? item.inputSchema : { type: 'object' },
      };
      if (typeof item.title === 'string') tool.title = item.title;
      if (isJsonObject(item.outputSchema)) tool.outputSchema = item.outputSchema;
      if (isJsonObject(item.annotations)) tool.annotations = item.annotations;
      const taskSupport = isJsonObject(item.execution) ? item.execution.taskSupport : undefined;
      if (taskSupport === 'required' || taskSupport === 'optional' || taskSupport === 'forbidden') {
        tool.taskSupport = taskSupport;
      }
      tools.push(tool);
    }
    return tools;
  }

  /** Lists every prompt (same paging limits as tools). */
  async listPrompts(signal?: AbortSignal): Promise<McpPromptDescriptor[]> {
    const items = await this.#listAll('prompts/list', 'prompts', Number.POSITIVE_INFINITY, signal);
    const prompts: McpPromptDescriptor[] = [];
    for (const item of items) {
      if (!isJsonObject(item) || typeof item.name !== 'string' || item.name === '') continue;
      const prompt: McpPromptDescriptor = { name: item.name };
      if (typeof item.description === 'string') prompt.description = item.description;
      if (Array.isArray(item.arguments)) prompt.arguments = item.arguments;
      if (isJsonObject(item._meta)) prompt._meta = item._meta;
      prompts.push(prompt);
    }
    return prompts;
  }

  /** `prompts/get` with string arguments; returns the raw result (messages, `_meta`). */
  async getPrompt(
    name: string,
    args: Record<string, string> = {},
    options: McpCallOptions = {},
  ): Promise<Record<string, unknown>> {
    return this.#request(
      'prompts/get',
      { name, arguments: args },
      {
        timeoutMs: this.#timeouts.promptGetMs,
        signal: options.signal,
        what: `prompts/get ${name}`,
      },
    );
  }

  /** Lists every resource (same paging limits as tools); items are normalized in catalog.ts. */
  async listResources(signal?: AbortSignal): Promise<unknown[]> {
    return this.#listAll('resources/list', 'resources', Number.POSITIVE_INFINITY, signal);
  }

  /** Lists every resource template (same paging limits as tools). */
  async listResourceTemplates(signal?: AbortSignal): Promise<unknown[]> {
    return this.#listAll(
      'resources/templates/list',
      'resourceTemplates',
      Number.POSITIVE_INFINITY,
      signal,
    );
  }

  /** `resources/read` with the tool-call deadline; returns the raw result (`contents`). */
  async readResource(uri: string, options: McpCallOptions = {}): Promise<Record<string, unknown>> {
    return this.#request(
      'resources/read',
      { uri },
      {
        timeoutMs: this.#timeouts.toolCallMs,
        signal: options.signal,
        what: `resources/read ${uri}`,
      },
    );
  }

  /**
   * `tools/call` with a 120 s deadline that host requests pending on this connection extend in
   * 60 s steps (≤ 10 min). Cancellation ends the wait at once and sends notifications/cancelled.
   * A result over 1 MiB (all blocks and structured output together) is rejected.
   */
  async callTool(
    name: string,
    args: Record<string, unknown> = {},
    options: McpCallOptions = {},
  ): Promise<McpCallToolResult> {
    const what = `tools/call ${name}`;
    const requestOptions: RequestOptions = {
      timeoutMs: this.#timeouts.toolCallMs,
      signal: options.signal,
      what,
      extension: this.#extension,
    };
    // Every call carries a fresh progress token; its reports reach onProgress until it ends.
    const onProgress = options.onProgress;
    const progress = this.#progress.open(onProgress);
    const call = async (): Promise<SizedResult> => {
      const params: Record<string, unknown> = {
        name,
        arguments: args,
        _meta: { progressToken: progress.token },
      };
      if (options.task !== true) return this.#requestSized('tools/call', params, requestOptions);
      const result = await callToolAsTask(
        { server: this.name, request: (m, p, o) => this.#request(m, p, o) },
        params,
        { signal: options.signal, onProgress, call: requestOptions, limits: options.taskLimits },
      );
      return { result, bytes: undefined };
    };
    this.#toolCalls++;
    let sized: SizedResult;
    try {
      try {
        sized = await call();
      } catch (error) {
        const urls = this.era === 'legacy' ? urlElicitationsRequired(error) : undefined;
        if (urls !== undefined) {
          await visitRequiredUrls({
            server: this.name,
            handlers: this.#handlers,
            urls,
            what,
            cause: error,
            signal: options.signal,
          });
          this.#onDiagnostic(
            `MCP server ${quoted(this.name)} required ${urls.length} URL visit(s) before ${what}; retrying once`,
          );
          sized = await call();
          return this.#toolResult(name, sized);
        }
        if (this.era !== 'modern' || !isHeaderMismatch(error)) throw error;
        // 2026-07-28: -32020 on a call means the per-request headers the transport derived from
        // the tool list (Mcp-Param-*) are stale. Re-list, which refreshes them, and retry once.
        this.#onDiagnostic(
          `MCP server ${quoted(this.name)} refused ${what} with -32020 (header mismatch); re-listing tools and retrying once`,
        );
        const listed = await this.listTools(options.signal);
        if (!listed.some((tool) => tool.name === name)) {
          throw new McpError(
            McpErrorCode.MCP_REMOTE_ERROR,
            `MCP server ${quoted(this.name)} refused ${what} with a header mismatch (-32020) and no longer lists tool ${quoted(name)}`,
            { server: this.name, rpcCode: JsonRpcErrorCode.HEADER_MISMATCH, cause: error },
          );
        }
        sized = await call();
      }
    } catch (error) {
      // Host work served for a call that ended early has no one left to wait for it.
      if (
        this.#toolCalls === 1 &&
        isMcpError(error) &&
        (error.code === McpErrorCode.MCP_CANCELLED || error.code === McpErrorCode.MCP_TIMEOUT)
      ) {
        this.#session.abortHostRequests(`${what} ended: ${error.message}`);
      }
      throw error;
    } finally {
      this.#toolCalls--;
      progress.release();
    }
    return this.#toolResult(name, sized);
  }

  /** Checks a finished tools/call result: size (counted once: from the frame the transport read,
   * else block by block), content shape, every block kept. */
  #toolResult(name: string, sized: SizedResult): McpCallToolResult {
    return readCallToolResult(this.name, name, sized.result, sized.bytes);
  }

  /** Sends a notification in the connection's era (modern adds nothing to notifications). */
  async notify(method: string, params?: Record<string, unknown>): Promise<void> {
    await this.#session.notify(method, params);
  }

  /** Closes the connection and the transport. Idempotent. */
  close(): Promise<void> {
    this.#closing ??= (async () => {
      for (const cleanup of this.#cleanups.splice(0).reverse()) {
        try {
          cleanup();
        } catch (error) {
          this.#onDiagnostic(`cleanup of ${quoted(this.name)} failed: ${errorMessage(error)}`);
        }
      }
      await Promise.all([this.#session.close(), this.#probeClosing]);
    })();
    return this.#closing;
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }

  /** Generic paging loop shared by tools/list and prompts/list. */
  async #listAll(
    method: string,
    key: string,
    maxItems: number,
    signal: AbortSignal | undefined,
  ): Promise<unknown[]> {
    const items: unknown[] = [];
    const seen = new Set<string>();
    let cursor: string | undefined;
    for (let page = 1; ; page++) {
      if (page > MCP_LIMITS.listPages) {
        throw this.#listLimit(
          `${method} of MCP server ${quoted(this.name)} needs more than ${MCP_LIMITS.listPages} pages`,
        );
      }
      const result = await this.#request(method, cursor === undefined ? {} : { cursor }, {
        timeoutMs: this.#timeouts.listPageMs,
        signal,
        what: `${method} page ${page}`,
      });
      const batch = result[key];
      if (batch !== undefined && !Array.isArray(batch)) {
        throw new McpError(
          McpErrorCode.MCP_PROTOCOL_VIOLATION,
          `${method} of MCP server ${quoted(this.name)} returned a non-array ${quoted(key)}`,
          { server: this.name },
        );
      }
      items.push(...(batch ?? []));
      if (items.length > maxItems) {
        throw this.#listLimit(
          `MCP server ${quoted(this.name)} lists more than ${maxItems} ${key} (limit ${maxItems})`,
        );
      }
      const next = result.nextCursor;
      if (next === undefined || next === null || next === '') return items;
      if (typeof next !== 'string') {
        throw new McpError(
          McpErrorCode.MCP_PROTOCOL_VIOLATION,
          `${method} of MCP server ${quoted(this.name)} returned a non-string nextCursor`,
          { server: this.name },
        );
      }
      if (seen.has(next)) {
        throw this.#listLimit(
          `${method} of MCP server ${quoted(this.name)} repeated cursor ${quoted(next)}; listing aborted`,
        );
      }
      seen.add(next);
      cursor = next;
    }
  }

  #listLimit(message: string): McpError {
    return new McpError(McpErrorCode.MCP_LIST_LIMIT, message, { server: this.name });
  }

  /** A request in this connection's era: the modern `_meta` envelope and resultType checks. */
  async #request(
    method: string,
    params: Record<string, unknown>,
    options: Parameters<RpcSession['request']>[2],
  ): Promise<Record<string, unknown>> {
    const { result } = await this.#requestSized(method, params, options);
    return result;
  }

  /**
   * {@link #request} with the result's size as received. `params` must be a fresh object of the
   * caller's: the modern `_meta` is set on it (a spread-then-add copy costs microseconds per call).
   */
  async #requestSized(
    method: string,
    params: Record<string, unknown>,
    options: Parameters<RpcSession['request']>[2],
  ): Promise<SizedResult> {
    if (this.#closing !== undefined) {
      throw new McpError(
        McpErrorCode.MCP_CLIENT_CLOSED,
        `MCP client of ${quoted(this.name)} is closed`,
        { server: this.name },
      );
    }
    if (this.era === 'modern') {
      this.#meta ??= modernMeta(this.#clientInfo, this.#capabilities);
      const own = params._meta;
      // A call's own `_meta` (its progress token) joins a copy of the shared envelope.
      params._meta = isJsonObject(own) ? Object.assign({}, this.#meta, own) : this.#meta;
    }
    const startedAt = Date.now();
    let sized = await this.#session.requestSized(method, params, options);
    const what = options.what ?? method;
    if (sized.result.resultType === 'input_required' && INPUT_ROUND_METHODS.has(method)) {
      const result = await runInputRounds({
        server: this.name,
        what,
        params,
        first: sized.result,
        startedAt,
        handlers: this.#handlers,
        send: (retry, signal, backstopMs) => {
          if (this.#meta !== undefined) retry._meta = params._meta;
          return this.#session.request(method, retry, { timeoutMs: backstopMs, signal, what });
        },
        timeoutMs: options.timeoutMs,
        extension: options.extension,
        hostRequestsPending: () => this.#session.pendingHostRequests,
        signal: options.signal,
        onDiagnostic: this.#onDiagnostic,
      });
      sized = { result, bytes: undefined };
    }
    checkResultType(this.name, this.era, what, sized.result, this.#onDiagnostic);
    return sized;
  }

  #startContextPushes(host: HostServices | undefined): void {
    // Stdio-style peers only: HTTP servers poll context/get instead (spec).
    if (host === undefined || !this.hostServicesNegotiated || this.transportKind === 'http') return;
    // Notifications are fire-and-forget: a slow server never blocks a CLAT run.
    const unsubscribe = host.subscribeContext({ kind: 'mcp', id: this.name }, (snapshot) => {
      if (this.#session.closed) return;
      this.#session
        .notify('io.artec.clat/context/changed', { context: snapshot })
        .catch((error: unknown) =>
          this.#onDiagnostic(
            `could not push context to MCP server ${quoted(this.name)}: ${errorMessage(error)}`,
          ),
        );
    });
    this.#cleanups.push(unsubscribe);
    this.#session.onClose(() => unsubscribe());
  }
}

function isHeaderMismatch(error: unknown): boolean {
  return (
    isMcpError(error) &&
    error.code === McpErrorCode.MCP_REMOTE_ERROR &&
    error.rpcCode === JsonRpcErrorCode.HEADER_MISMATCH
  );
}

interface ClientHooks {
  toolCallActive: () => boolean;
  elicitation: () => boolean;
  serverCapabilities?: () => Record<string, unknown>;
  handlers?: HostHandlers;
  rootsServed: { count: number };
}

/**
 * A result is complete when it says so or says nothing (newer revisions read a missing
 * resultType as complete; a modern one is logged at debug level). `input_required` is valid only
 * for the multi-round-trip methods, whose loop ran before this check; anything else is invalid.
 */
function checkResultType(
  server: string,
  era: McpEra,
  what: string,
  result: Record<string, unknown>,
  onDiagnostic?: (message: string) => void,
): void {
  const type = result.resultType;
  if (type === 'complete') return;
  if (type === undefined) {
    if (era === 'modern') {
      onDiagnostic?.(
        `MCP server ${quoted(server)} answered ${what} without resultType; read as complete`,
      );
    }
    return;
  }
  throw new McpError(
    McpErrorCode.MCP_PROTOCOL_VIOLATION,
    type === 'input_required'
      ? `MCP server ${quoted(server)} answered ${what} with an input_required result, which only tools/call, prompts/get and resources/read may return`
      : `MCP server ${quoted(server)} answered ${what} with unknown resultType ${JSON.stringify(type)}`,
    { server },
  );
}

function decorate(error: unknown, transport: Transport): unknown {
  if (!isMcpError(error) || error.code === McpErrorCode.MCP_CANCELLED) return error;
  const suffix = stderrSuffix(transport);
  if (suffix === '') return error;
  return new McpError(error.code, `${error.message}${suffix}`, {
    ...(error.server === undefined ? {} : { server: error.server }),
    stderrTail: stderrTail(transport),
    cause: error,
  });
}

/** HTTP statuses whose failed probe still points at a legacy server (mcp-protocol.md §1). */
const HTTP_LEGACY_PROBE_STATUSES: ReadonlySet<number> = new Set([400, 404, 405]);

/** The HTTP status a transport error carries (`status` on the error or a cause), if any. */
function httpStatusOf(error: unknown): number | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 4 && typeof current === 'object' && current !== null; depth++) {
    const status = (current as { status?: unknown }).status;
    if (typeof status === 'number') return status;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

/**
 * Sends `server/discover`. A result naming {@link MODERN_PROTOCOL_VERSION}, or a recognized modern
 * error, means modern; a result without that version and any other JSON-RPC error mean legacy
 * (never keyed on one error code). A timeout means legacy too: the limits table gives the probe
 * 3 s and then the legacy handshake its own 10 s, and a server that fails both is reported with
 * both reasons. A closed connection means legacy on stdio only: on HTTP an unreachable, broken or
 * unauthorized server is no legacy one, so only a 400/404/405 status counts there and every other
 * failure fails the connection.
 */
async function probeModern(
  session: RpcSession,
  kind: TransportKind,
  clientInfo: McpClientInfo,
  capabilities: Record<string, unknown>,
  timeouts: McpTimeouts,
  signal: AbortSignal | undefined,
): Promise<ProbeOutcome> {
  const server = session.server;
  let retried = false;
  for (;;) {
    try {
      const result = await session.request(
        'server/discover',
        { _meta: modernMeta(clientInfo, capabilities) },
        { timeoutMs: timeouts.modernProbeMs, signal, what: 'server/discover', cancellable: true },
      );
      if (!Array.isArray(result.supportedVersions)) {
        return { kind: 'legacy', reason: 'server/discover result lacks supportedVersions' };
      }
      if (!result.supportedVersions.includes(MODERN_PROTOCOL_VERSION)) {
        const listed = result.supportedVersions
          .filter((v): v is string => typeof v === 'string')
          .slice(0, 8)
          .join(', ');
        return {
          kind: 'legacy',
          reason: `server/discover lists supportedVersions ${listed === '' ? '(none)' : listed}, not ${MODERN_PROTOCOL_VERSION}`,
        };
      }
      return { kind: 'modern', result };
    } catch (error) {
      if (!isMcpError(error)) throw error;
      if (error.code === McpErrorCode.MCP_CANCELLED) throw error;
      if (error.code === McpErrorCode.MCP_REMOTE_ERROR && error.rpcCode !== undefined) {
        if (!MODERN_ERROR_CODES.has(error.rpcCode)) {
          return { kind: 'legacy', reason: `server/discover failed with ${error.rpcCode}` };
        }
        const supported = isJsonObject(error.rpcData) ? error.rpcData.supported : undefined;
        // -32022 naming our version: the server is modern and wants the request again.
        if (
          error.rpcCode === -32022 &&
          !retried &&
          Array.isArray(supported) &&
          supported.includes(MODERN_PROTOCOL_VERSION)
        ) {
          retried = true;
          continue;
        }
        throw new McpError(
          McpErrorCode.MCP_HANDSHAKE_FAILED,
          `MCP server ${quoted(server)} is modern but refused ${MODERN_PROTOCOL_VERSION}: ${error.message}${Array.isArray(supported) ? ` (supported: ${supported.join(', ')})` : ''}`,
          { server, cause: error },
        );
      }
      if (kind === 'http' && error.code !== McpErrorCode.MCP_TIMEOUT) {
        const status = httpStatusOf(error);
        if (status === undefined || !HTTP_LEGACY_PROBE_STATUSES.has(status)) {
          throw new McpError(
            McpErrorCode.MCP_HANDSHAKE_FAILED,
            `MCP server ${quoted(server)} failed the modern probe: ${error.message}; over HTTP that is no evidence of a legacy server, so CLAT does not fall back to initialize`,
            { server, cause: error },
          );
        }
      }
      return { kind: 'legacy', reason: error.message };
    }
  }
}

function readDiscover(
  server: string,
  opened: { session: RpcSession; transport: Transport },
  result: Record<string, unknown>,
): Negotiated {
  checkResultType(server, 'modern', 'server/discover', result);
  if (!isJsonObject(result.capabilities)) {
    throw new McpError(
      McpErrorCode.MCP_PROTOCOL_VIOLATION,
      `MCP server ${quoted(server)} answered server/discover without a capabilities object`,
      { server },
    );
  }
  const meta = isJsonObject(result._meta) ? result._meta : {};
  return {
    ...opened,
    era: 'modern',
    protocolVersion: MODERN_PROTOCOL_VERSION,
    serverInfo: readServerInfo(meta[META.serverInfo] ?? result.serverInfo),
    capabilities: result.capabilities,
    instructions: typeof result.instructions === 'string' ? result.instructions : undefined,
  };
}

async function legacyHandshake(
  server: string,
  opened: { session: RpcSession; transport: Transport },
  clientInfo: McpClientInfo,
  capabilities: Record<string, unknown>,
  timeouts: McpTimeouts,
  signal: AbortSignal | undefined,
): Promise<Negotiated> {
  const result = await opened.session.request(
    'initialize',
    {
      protocolVersion: LATEST_LEGACY_PROTOCOL_VERSION,
      capabilities,
      clientInfo: { ...clientInfo },
    },
    {
      timeoutMs: timeouts.legacyHandshakeMs,
      signal,
      what: 'initialize',
      // The spec forbids cancelling initialize.
      cancellable: false,
    },
  );
  const version = result.protocolVersion;
  if (
    typeof version !== 'string' ||
    !(LEGACY_PROTOCOL_VERSIONS as readonly string[]).includes(version)
  ) {
    throw new McpError(
      McpErrorCode.MCP_HANDSHAKE_FAILED,
      `initialize returned protocol version ${JSON.stringify(version)}; CLAT accepts ${LEGACY_PROTOCOL_VERSIONS.join(', ')}`,
      { server },
    );
  }
  await opened.session.notify('notifications/initialized', {});
  return {
    ...opened,
    era: 'legacy',
    protocolVersion: version,
    serverInfo: readServerInfo(result.serverInfo),
    capabilities: isJsonObject(result.capabilities) ? result.capabilities : {},
    instructions: typeof result.instructions === 'string' ? result.instructions : undefined,
  };
}

/**
 * McpClient: one connected MCP server over the kernel Transport port, in either protocol era.
 * Connecting and era negotiation live in `connect.ts`/`handshake.ts`, paging in
 * `list-paging.ts`, tool results in `tool-result.ts`, renewing a forgotten legacy HTTP session
 * in `session-renewal.ts`; this class owns the connection's state (era, open tool calls, close)
 * and the request path.
 * Slightly over ~500 lines: callTool's inline fast path and its two one-time retries (URL
 * elicitation, stale Mcp-Param-* headers) read and update the same private connection state
 * (open-call count, progress tokens, the modern `_meta`); the checks they share already live in
 * settle-response.ts, task-call.ts and url-elicitation.ts.
 * @module
 */
import {
  delay,
  errorMessage,
  type HostServices,
  isJsonObject,
  type MountLogEntry,
} from '@clat/kernel';
import { readCallToolResult } from './call-result.js';
import { quoted, stderrTail } from './client-diagnostics.js';
import type {
  McpCallOptions,
  McpCallToolResult,
  McpClientOptions,
  McpPromptDescriptor,
  McpServerInfo,
  McpToolDescriptor,
} from './client-types.js';
import { type ClientHooks, type Connection, negotiateConnection } from './connect.js';
import { startContextPushes } from './context-push.js';
import { isMcpError, McpError, McpErrorCode } from './errors.js';
import { legacyHandshake } from './handshake.js';
import type { HostHandlers } from './host-requests.js';
import { MCP_LIMITS } from './limits.js';
import { listAllPages, readPromptDescriptors, readToolDescriptors } from './list-paging.js';
import { ProgressRouter } from './progress-router.js';
import {
  ELICITATION_MIN_LEGACY_VERSION,
  type McpClientInfo,
  type McpEra,
  type McpTimeouts,
  META,
  modernMeta,
  serverAdvertisesHostServices,
  serverOffersToolTasks,
  versionAtLeast,
} from './protocol.js';
import { ROOTS_SETTLE_MS } from './roots.js';
import type { RequestOptions, RpcSession, SizedResult } from './rpc-session.js';
import { DEFAULT_LOG_LEVEL, ServerLog } from './server-log.js';
import { SessionRenewal } from './session-renewal.js';
import { type SettleConnection, settleResponse } from './settle-response.js';
import { callToolAsTask } from './task-call.js';
import { isHeaderMismatch } from './tool-result.js';
import {
  type GetStreamState,
  JsonRpcErrorCode,
  type Transport,
  type TransportKind,
} from './transport.js';
import { urlElicitationsRequired, visitRequiredUrls } from './url-elicitation.js';

export type {
  McpCallOptions,
  McpCallToolResult,
  McpClientOptions,
  McpPromptDescriptor,
  McpServerInfo,
  McpToolDescriptor,
} from './client-types.js';

/** The params of one tools/call attempt: a fresh object, as the modern `_meta` is set on it. */
function callParams(
  name: string,
  args: Record<string, unknown>,
  progressToken: string,
): Record<string, unknown> {
  return { name, arguments: args, _meta: { progressToken } };
}

export class McpClient {
  readonly name: string;
  /** The transport the connection runs on (HTTP+SSE when Streamable HTTP fell back to it). */
  readonly transportKind: TransportKind;
  readonly era: McpEra;
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
  readonly #onSkippedTool: (message: string) => void;
  readonly #cleanups: (() => void)[] = [];
  readonly #progress = new ProgressRouter();
  /** What settling a response needs of this connection, built once. */
  readonly #settle: SettleConnection;
  readonly #handlers: HostHandlers;
  readonly #rootsServed: { count: number; lastAt: number };
  readonly #log: ServerLog;
  #toolCalls = 0;
  #protocolVersion: string;
  /** Legacy HTTP only: sends a request again in a new session when the server forgot its own. */
  readonly #renewal: SessionRenewal | undefined;
  /** The modern per-request `_meta`, built once: it never changes on a connection. */
  #meta: Record<string, unknown> | undefined;
  /** The tools/call deadline extension, built once. */
  readonly #extension: { stepMs: number; totalMs: number };
  #closing: Promise<void> | undefined;
  /** Teardown of a discarded probe transport still in progress. */
  readonly #probeClosing: Promise<void> | undefined;

  private constructor(
    options: McpClientOptions,
    connection: Connection,
    rootsServed: { count: number; lastAt: number },
  ) {
    const { negotiated } = connection;
    this.#handlers = connection.handlers;
    this.#rootsServed = rootsServed;
    this.name = options.name;
    this.transportKind = connection.transportKind;
    this.era = negotiated.era;
    this.#protocolVersion = negotiated.protocolVersion;
    this.serverInfo = negotiated.serverInfo;
    this.serverCapabilities = negotiated.capabilities;
    this.instructions = negotiated.instructions;
    this.transportsOpened = connection.opened;
    this.#session = negotiated.session;
    this.#transport = negotiated.transport;
    this.#clientInfo = connection.clientInfo;
    this.#capabilities = connection.capabilities;
    this.#timeouts = connection.timeouts;
    this.#extension = {
      stepMs: connection.timeouts.toolCallExtensionStepMs,
      totalMs: connection.timeouts.toolCallExtensionTotalMs,
    };
    this.#probeClosing = connection.probeClosing;
    this.#onDiagnostic = options.onDiagnostic ?? (() => {});
    this.#onSkippedTool = options.onSkippedTool ?? this.#onDiagnostic;
    this.#progress.install(this.#session);
    const log = options.log ?? new ServerLog();
    this.#log = log;
    this.#session.setNotificationHandler('notifications/message', (params) => log.add(params));
    this.#settle = {
      server: this.name,
      era: this.era,
      session: this.#session,
      handlers: this.#handlers,
      modernMeta: () => this.#meta !== undefined,
      onDiagnostic: this.#onDiagnostic,
    };
    this.#renewal =
      // Only HTTP transports have sessions a server can forget; stdio skips the wrapper.
      (this.transportKind === 'http' || this.transportKind === 'sse') && this.era === 'legacy'
        ? new SessionRenewal({
            server: this.name,
            handshake: () => this.#renewSession(),
            closed: () => this.#closing !== undefined || this.#session.closed,
            onDiagnostic: this.#onDiagnostic,
          })
        : undefined;
  }

  /**
   * The negotiated protocol version. A legacy HTTP server that forgot its session may settle
   * another one in the new session's `initialize` (it was upgraded while it restarted).
   */
  get protocolVersion(): string {
    return this.#protocolVersion;
  }

  /** The legacy handshake again, on the same transport (which dropped the forgotten session). */
  async #renewSession(): Promise<void> {
    const negotiated = await legacyHandshake(
      this.name,
      { session: this.#session, transport: this.#transport },
      this.#clientInfo,
      this.#capabilities,
      this.#timeouts,
      undefined,
    );
    if (negotiated.protocolVersion !== this.#protocolVersion) {
      this.#onDiagnostic(
        `MCP server ${quoted(this.name)} settled protocol version ${negotiated.protocolVersion} in its new session (was ${this.#protocolVersion})`,
      );
      this.#protocolVersion = negotiated.protocolVersion;
    }
  }

  /**
   * Connects and negotiates the era. Modern `server/discover` first (3 s); on failure the legacy
   * `initialize` handshake (10 s), on a fresh transport when the factory asks for probe
   * isolation. A recognized modern error never falls back.
   */
  static async connect(options: McpClientOptions): Promise<McpClient> {
    // The handshake must know whether a tools/call is active before the client object exists.
    const hooks: ClientHooks = {
      toolCallActive: () => false,
      elicitation: () => false,
      rootsServed: { count: 0, lastAt: 0 },
    };
    const connection = await negotiateConnection(options, hooks);
    const client = new McpClient(options, connection, hooks.rootsServed);
    hooks.toolCallActive = () => client.#toolCalls > 0;
    hooks.elicitation = () => client.elicitationNegotiated;
    hooks.serverCapabilities = () => client.serverCapabilities;
    client.#startContextPushes(options.hostServices);
    client.#setLevel();
    return client;
  }

  /** True when the server declared the `logging` capability (it sends log messages). */
  get #logs(): boolean {
    return isJsonObject(this.serverCapabilities.logging);
  }

  /**
   * Asks a legacy server that logs to send only {@link DEFAULT_LOG_LEVEL} and above, so a chatty
   * one does not flood the connection. Not awaited: it costs the connect no round trip, and a
   * server that refuses it (or never answers) keeps its connection and logs at its own level.
   * The modern era has no such request: its `_meta` carries the level (see {@link #send}).
   */
  #setLevel(): void {
    if (this.era !== 'legacy' || !this.#logs) return;
    this.#request(
      'logging/setLevel',
      { level: DEFAULT_LOG_LEVEL },
      { timeoutMs: this.#timeouts.listPageMs, what: 'logging/setLevel' },
    ).catch((error: unknown) => {
      if (this.#closing !== undefined || this.#session.closed) return;
      this.#onDiagnostic(
        `MCP server ${quoted(this.name)} refused logging/setLevel ${DEFAULT_LOG_LEVEL}: ${errorMessage(error)}`,
      );
    });
  }

  /** The newest log messages of the server, oldest first (redacted by key shape, cut). */
  logTail(): MountLogEntry[] {
    return this.#log.entries();
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

  /**
   * Waits out the rest of `ROOTS_SETTLE_MS` after a `roots/list` answer. Servers apply roots
   * asynchronously once they have the answer (server-filesystem checks each root on disk before
   * allowing it), so a call sent in the same instant, as `clat call` does right after connecting,
   * would be refused as outside the allowed directories. Costs nothing when no roots were asked
   * for recently; a cancelled wait falls through to the call, which reports the cancellation.
   */
  async #rootsSettled(signal: AbortSignal | undefined): Promise<void> {
    const since = Date.now() - this.#rootsServed.lastAt;
    if (since >= ROOTS_SETTLE_MS) return;
    await delay(ROOTS_SETTLE_MS - since, signal).catch(() => {});
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

  /**
   * Calls `listener` each time the standalone GET stream's state changes, for transports that
   * have one (it opens after the handshake, so it often settles after `connect` resolved). One
   * listener per client: a later call replaces it, `undefined` removes it.
   */
  onGetStreamState(listener: ((state: GetStreamState) => void) | undefined): void {
    this.#transport.ongetstreamstate = listener;
  }

  /**
   * Calls `listener` on each `notifications/tools/list_changed` (legacy era: a modern server
   * sends it only on a subscription, which CLAT does not open). One listener per client: a later
   * call replaces it, `undefined` removes it.
   */
  onToolListChanged(listener: (() => void) | undefined): void {
    this.#session.setNotificationHandler('notifications/tools/list_changed', () => listener?.());
  }

  /** The transport's diagnostics (redacted stderr tail, endpoint). */
  diagnostics(): { tail: string[] } {
    return { tail: stderrTail(this.#transport) };
  }

  /**
   * Lists every tool: ≤ 32 pages of ≤ 30 s each, ≤ `MCP_LIMITS.listedTools` tools, a repeated
   * cursor aborts; the per-server cap is the mount's, on the tools the entry's filters keep. On a
   * modern HTTP connection the list also teaches the `Mcp-Param-*` headers of later calls, and a
   * tool with an invalid `x-mcp-header` declaration is dropped (the spec forbids calling it).
   */
  async listTools(signal?: AbortSignal): Promise<McpToolDescriptor[]> {
    let items = await this.#listAll('tools/list', 'tools', MCP_LIMITS.listedTools, signal);
    const headers = this.#session.headers;
    if (headers?.modern === true) {
      items = headers.learnTools(items, (tool, reason) =>
        this.#onSkippedTool(
          `tool ${quoted(tool)} of MCP server ${quoted(this.name)} skipped: ${reason}`,
        ),
      );
    }
    return readToolDescriptors(this.name, items, this.#onSkippedTool);
  }

  /** Lists every prompt (same paging limits as tools). */
  async listPrompts(signal?: AbortSignal): Promise<McpPromptDescriptor[]> {
    const items = await this.#listAll('prompts/list', 'prompts', Number.POSITIVE_INFINITY, signal);
    return readPromptDescriptors(items);
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
    const progressToken = this.#progress.open(options.onProgress);
    // Only a call right after a roots/list answer waits; the others skip an await.
    if (Date.now() - this.#rootsServed.lastAt < ROOTS_SETTLE_MS) {
      await this.#rootsSettled(options.signal);
    }
    this.#toolCalls++;
    let sized: SizedResult;
    try {
      try {
        if (options.task === true) {
          sized = await this.#sendCall(name, args, progressToken, options, requestOptions);
        } else {
          // The usual call, inline: the session's promise is awaited here, with no layer between.
          const params = callParams(name, args, progressToken);
          const startedAt = Date.now();
          sized = await this.#send('tools/call', params, requestOptions);
          const settled = settleResponse(
            this.#settle,
            'tools/call',
            params,
            requestOptions,
            sized,
            startedAt,
          );
          sized = settled instanceof Promise ? await settled : settled;
        }
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
          sized = await this.#sendCall(name, args, progressToken, options, requestOptions);
          return readCallToolResult(this.name, name, sized.result, sized.bytes);
        }
        if (this.era !== 'modern' || !isHeaderMismatch(error)) throw error;
        // 2026-07-28: -32020 on a call means the Mcp-Param-* headers learned from the last tool
        // list are stale (or none was listed yet). Re-list, which relearns them, and retry once.
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
        sized = await this.#sendCall(name, args, progressToken, options, requestOptions);
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
      this.#progress.release(progressToken);
    }
    return readCallToolResult(this.name, name, sized.result, sized.bytes);
  }

  /**
   * One tools/call request (fresh params each time: the modern `_meta` is set on them). Not an
   * async function: the plain call returns the session's own promise, one layer less per call.
   */
  #sendCall(
    name: string,
    args: Record<string, unknown>,
    progressToken: string,
    options: McpCallOptions,
    requestOptions: RequestOptions,
  ): Promise<SizedResult> {
    const params = callParams(name, args, progressToken);
    if (options.task === true) return this.#sendTaskCall(params, options, requestOptions);
    return this.#requestSized('tools/call', params, requestOptions);
  }

  async #sendTaskCall(
    params: Record<string, unknown>,
    options: McpCallOptions,
    requestOptions: RequestOptions,
  ): Promise<SizedResult> {
    const result = await callToolAsTask(
      { server: this.name, request: (m, p, o) => this.#request(m, p, o) },
      params,
      {
        signal: options.signal,
        onProgress: options.onProgress,
        call: requestOptions,
        limits: options.taskLimits,
      },
    );
    return { result, bytes: undefined };
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

  #listAll(
    method: string,
    key: string,
    maxItems: number,
    signal: AbortSignal | undefined,
  ): Promise<unknown[]> {
    return listAllPages(this.name, method, key, maxItems, (params, what) =>
      this.#request(method, params, { timeoutMs: this.#timeouts.listPageMs, signal, what }),
    );
  }

  /** A request in this connection's era: the modern `_meta` envelope and resultType checks. */
  async #request(
    method: string,
    params: Record<string, unknown>,
    options: RequestOptions,
  ): Promise<Record<string, unknown>> {
    const { result } = await this.#requestSized(method, params, options);
    return result;
  }

  /**
   * {@link #request} with the result's size as received. `params` must be a fresh object of the
   * caller's: the modern `_meta` is set on it (a spread-then-add copy costs microseconds per call).
   * A complete result in the legacy era costs one promise layer over the session's own.
   */
  #requestSized(
    method: string,
    params: Record<string, unknown>,
    options: RequestOptions,
  ): Promise<SizedResult> {
    const startedAt = Date.now();
    return this.#send(method, params, options).then((sized) =>
      settleResponse(this.#settle, method, params, options, sized, startedAt),
    );
  }

  /** Sends a request in this connection's era; the caller checks the answer with `settleResponse`. */
  #send(
    method: string,
    params: Record<string, unknown>,
    options: RequestOptions,
  ): Promise<SizedResult> {
    if (this.#closing !== undefined) {
      return Promise.reject(
        new McpError(
          McpErrorCode.MCP_CLIENT_CLOSED,
          `MCP client of ${quoted(this.name)} is closed`,
          {
            server: this.name,
          },
        ),
      );
    }
    if (this.era === 'modern') {
      this.#meta ??= this.#modernMeta();
      const own = params._meta;
      // A call's own `_meta` (its progress token) joins a copy of the shared envelope.
      params._meta = isJsonObject(own) ? Object.assign({}, this.#meta, own) : this.#meta;
    }
    if (this.#renewal !== undefined) {
      return this.#renewal.send(
        () => this.#session.requestSized(method, params, options),
        options.signal,
        options.what ?? method,
      );
    }
    return this.#session.requestSized(method, params, options);
  }

  /**
   * The modern `_meta` of this connection's requests. A server that declared `logging` gets the
   * level there (2026-07-28 removed `logging/setLevel`: log messages are opt-in per request).
   */
  #modernMeta(): Record<string, unknown> {
    const meta = modernMeta(this.#clientInfo, this.#capabilities);
    if (this.#logs) meta[META.logLevel] = DEFAULT_LOG_LEVEL;
    return meta;
  }

  #startContextPushes(host: HostServices | undefined): void {
    // Stdio-style peers only: HTTP servers poll context/get instead (spec).
    if (
      host === undefined ||
      !this.hostServicesNegotiated ||
      this.transportKind === 'http' ||
      this.transportKind === 'sse'
    )
      return;
    this.#cleanups.push(startContextPushes(this.name, this.#session, host, this.#onDiagnostic));
  }
}

/**
 * `serveClat`: runs one DSH plugin in this process and serves it as a dual-era MCP stdio server
 * (modern `server/discover` and legacy `initialize`, via the SDK's `serveStdio`) with CLAT's
 * host-services extension. `apply()` runs once per process, before any request is answered.
 * Slightly over ~500 lines: the handshake, tool dispatch and host-services wiring of one served
 * plugin read as one sequence; a split would only move the shared server state around.
 * @module
 */
import type { Readable, Writable } from 'node:stream';
import {
  DSH_SYSTEM_PROMPT_META,
  HOST_SERVICES_EXTENSION,
  HostServicesMethod,
  MCP_LIMITS,
  SYSTEM_PROMPT_META,
} from '@clat/adapter-mcp';
import { HOST_SERVICES_VERSION, isJsonObject, utf8Length } from '@clat/kernel';
import {
  type CallToolResult,
  CLIENT_CAPABILITIES_META_KEY,
  ProtocolError,
  ProtocolErrorCode,
  Server,
  type ServerContext,
  type Tool,
} from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { type DshContext, DshRuntime, type SeamRecorder } from './dsh-context.js';
import { DshAdapterError, DshErrorCode, describeError, isDshAdapterError } from './errors.js';
import { type CallScope, clientFeaturesOf, HostLink } from './host-link.js';
import { assertServicesAvailable, normalizePlugin } from './plugin-loader.js';
import { type ServedTool, TOOL_HINTS, type ToolHint, type ToolRunContext } from './seams/tools.js';
import { StdioWire } from './stdio-wire.js';

/** Name of the one marked prompt carrying the plugin's system-prompt contributions. */
export const DSH_PROMPT_NAME = 'dsh-system-prompt';
/** `_meta` key carrying the rendered runtime-context body on prompts/get. */
export const RUNTIME_CONTEXT_META = 'io.artec.clat/runtimeContext';

export interface ServeClatOptions {
  /** MCP server name; defaults to the plugin's name, then `dsh-plugin`. */
  name?: string;
  /** MCP server version; defaults to `0.0.0`. */
  version?: string;
  /** Passed through the plugin's `Config` to `apply()`; defaults to `{}`. */
  config?: unknown;
  /** Effect declarations per tool name; a tool without one is destructive. */
  toolHints?: Readonly<Record<string, ToolHint>>;
  /** Protocol input; defaults to `process.stdin`. */
  input?: Readable;
  /** Protocol output; defaults to `process.stdout`. Nothing else is ever written to it. */
  output?: Writable;
  /** Diagnostics; defaults to `process.stderr`. */
  errorOutput?: Writable;
  /** Environment the web seam reads provider choices from; defaults to `process.env`. */
  env?: Readonly<Record<string, string | undefined>>;
}

export interface ServedToolSummary {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
  annotations?: Record<string, boolean>;
}

export interface ClatServerHandle {
  readonly name: string;
  readonly version: string;
  /** Tools as tools/list serves them now. */
  listTools(): ServedToolSummary[];
  /** True when the marked system prompt is listed. */
  hasSystemPrompt(): boolean;
  /** Stops serving: aborts running calls, then runs the plugin's cleanups newest first. */
  dispose(): Promise<void>;
  /** Settles once the server stopped (EOF on input or dispose()). */
  readonly closed: Promise<void>;
}

interface Deferred {
  promise: Promise<void>;
  resolve(): void;
  reject(error: unknown): void;
}

function deferred(): Deferred {
  let resolve!: () => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<void>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  promise.catch(() => {});
  return { promise, resolve, reject };
}

function validateHints(
  hints: Readonly<Record<string, unknown>>,
): Readonly<Record<string, ToolHint>> {
  for (const [tool, hint] of Object.entries(hints)) {
    if (!(TOOL_HINTS as readonly unknown[]).includes(hint)) {
      throw new DshAdapterError(
        DshErrorCode.BAD_PLUGIN,
        `toolHints.${tool} is ${JSON.stringify(hint)}; use one of ${TOOL_HINTS.join(', ')}`,
      );
    }
  }
  return hints as Readonly<Record<string, ToolHint>>;
}

function lineSink(stream: Writable): (line: string) => void {
  return (line) => {
    stream.write(line.endsWith('\n') ? line : `${line}\n`);
  };
}

/** JSON round trip: drops undefined, rejects what JSON cannot carry. */
function jsonSafe(value: unknown, what: string): unknown {
  let text: string | undefined;
  try {
    text = JSON.stringify(value);
  } catch (error) {
    throw new DshAdapterError(
      DshErrorCode.RESULT_NOT_SERIALIZABLE,
      `${what} cannot be serialized: ${describeError(error)}`,
    );
  }
  return text === undefined ? undefined : (JSON.parse(text) as unknown);
}

function toContentBlocks(blocks: unknown, tool: string): Record<string, unknown>[] {
  if (!Array.isArray(blocks)) {
    throw new DshAdapterError(
      DshErrorCode.BAD_RENDER,
      `output.render of tool ${tool} must return an array of content blocks`,
    );
  }
  return blocks.map((block) => {
    if (isJsonObject(block) && block.type === 'text' && typeof block.text === 'string') {
      return { type: 'text', text: block.text };
    }
    if (
      isJsonObject(block) &&
      (block.type === 'image' || block.type === 'audio') &&
      typeof block.data === 'string' &&
      typeof block.mimeType === 'string'
    ) {
      return { type: block.type, data: block.data, mimeType: block.mimeType };
    }
    return {
      type: 'text',
      text: JSON.stringify(jsonSafe(block, `a content block of tool ${tool}`)) ?? '',
    };
  });
}

function errorResult(error: unknown): Record<string, unknown> {
  return { content: [{ type: 'text', text: describeError(error) }], isError: true };
}

function summary(tool: ServedTool): ServedToolSummary {
  return {
    name: tool.name,
    description: tool.description,
    inputSchema: tool.inputSchema,
    ...(tool.annotations === undefined
      ? {}
      : { annotations: { ...tool.annotations } as Record<string, boolean> }),
  };
}

/** Reads the optional string prompt arguments CLAT (or another host) passed. */
function promptArgument(args: unknown, key: string): string | undefined {
  if (!isJsonObject(args)) return undefined;
  const value = args[key];
  return typeof value === 'string' && value !== '' ? value : undefined;
}

interface InternalOptions {
  /** Inspect mode: record seams, never serve. */
  recorder?: SeamRecorder;
}

/**
 * Serves a DSH plugin over MCP stdio. Resolves once `apply()` settled and the server answers
 * requests; rejects (after shutting down) when the plugin, its config or its services fail.
 */
export async function serveClat(
  plugin: unknown,
  options: ServeClatOptions = {},
): Promise<ClatServerHandle> {
  return startServer(plugin, options, {});
}

/** @internal Shared by serveClat and `clat-dsh inspect`. */
export async function startServer(
  plugin: unknown,
  options: ServeClatOptions,
  internal: InternalOptions,
): Promise<ClatServerHandle> {
  const normalized = normalizePlugin(plugin);
  const name = options.name ?? normalized.name ?? 'dsh-plugin';
  const version = options.version ?? '0.0.0';
  const toolHints = validateHints(options.toolHints ?? {});
  const errorOutput = options.errorOutput ?? process.stderr;
  const log = lineSink(errorOutput);
  const link = new HostLink();
  const runtime = new DshRuntime({
    name,
    toolHints,
    env: options.env ?? process.env,
    log,
    link,
    defaultCwd: () => process.cwd(),
    ...(internal.recorder === undefined ? {} : { recorder: internal.recorder }),
  });

  const ready = deferred();
  const running = new Set<AbortController>();
  const closed = deferred();
  let shuttingDown: Promise<void> | undefined;

  const wire = new StdioWire({
    input: options.input ?? process.stdin,
    output: options.output ?? process.stdout,
    log: (message) => log(`[clat-dsh:${name}] ${message}`),
    interceptNotification: (method, params) => {
      if (method !== HostServicesMethod.contextChanged) return false;
      link.acceptPush(params);
      return true;
    },
  });

  const createServer = (): Server => {
    const capabilities: Record<string, unknown> = {
      tools: { listChanged: false },
      experimental: { [HOST_SERVICES_EXTENSION]: { version: HOST_SERVICES_VERSION } },
    };
    if (runtime.systemPrompt.hasContributions()) capabilities.prompts = { listChanged: false };
    const server = new Server({ name, version }, { capabilities });
    const featuresOf = (ctx: ServerContext) =>
      clientFeaturesOf(
        (ctx.mcpReq.envelope as Record<string, unknown> | undefined)?.[
          CLIENT_CAPABILITIES_META_KEY
        ] ?? server.getClientCapabilities(),
      );

    server.setRequestHandler('tools/list', () => ({
      tools: runtime.servedTools().map(summary) as unknown as Tool[],
    }));

    server.setRequestHandler('tools/call', async (request, ctx): Promise<CallToolResult> => {
      const toolName = request.params.name;
      if (typeof toolName !== 'string' || toolName === '') {
        throw new ProtocolError(ProtocolErrorCode.InvalidParams, 'tools/call needs a tool name');
      }
      const tool = runtime.findTool(toolName);
      if (tool === undefined) {
        return errorResult(
          new DshAdapterError(DshErrorCode.UNKNOWN_TOOL, `tool ${toolName} is not registered`),
        ) as CallToolResult;
      }
      const args = request.params.arguments ?? {};
      const controller = new AbortController();
      const onAbort = () => controller.abort(ctx.mcpReq.signal.reason);
      if (ctx.mcpReq.signal.aborted) controller.abort();
      ctx.mcpReq.signal.addEventListener('abort', onAbort, { once: true });
      running.add(controller);
      const scope: CallScope = {
        callId: String(ctx.mcpReq.id),
        toolName,
        signal: controller.signal,
        features: featuresOf(ctx),
        requester: wire,
      };
      try {
        const value = await link.runInCall(scope, () =>
          executeTool(tool, args, scope, (message) => runtime.logger.warn(message)),
        );
        const content = toContentBlocks(tool.render(args, value), toolName);
        const structured = jsonSafe(value, `the result of tool ${toolName}`);
        const result: Record<string, unknown> = { content };
        if (structured !== undefined) {
          result.structuredContent = isJsonObject(structured) ? structured : { result: structured };
        }
        return result as CallToolResult;
      } catch (error) {
        return errorResult(error) as CallToolResult;
      } finally {
        running.delete(controller);
        ctx.mcpReq.signal.removeEventListener('abort', onAbort);
      }
    });

    if (runtime.systemPrompt.hasContributions()) {
      server.setRequestHandler('prompts/list', () => ({
        prompts: [
          {
            name: DSH_PROMPT_NAME,
            description: `System-prompt contributions of the ${name} DSH plugin`,
            arguments: [
              {
                name: 'cwd',
                description: 'Project root the prompt is assembled for',
                required: false,
              },
              { name: 'provider', description: 'Active model provider', required: false },
              { name: 'model', description: 'Active model', required: false },
            ],
            _meta: { [DSH_SYSTEM_PROMPT_META]: true },
          },
        ],
      }));
      server.setRequestHandler('prompts/get', async (request) => {
        if (request.params.name !== DSH_PROMPT_NAME) {
          throw new ProtocolError(
            ProtocolErrorCode.InvalidParams,
            `[${DshErrorCode.UNKNOWN_PROMPT}] prompt ${request.params.name} does not exist; this server has ${DSH_PROMPT_NAME}`,
          );
        }
        const args = request.params.arguments;
        let rendered: Awaited<ReturnType<typeof runtime.systemPrompt.render>>;
        try {
          rendered = await runtime.systemPrompt.render({
            ...(promptArgument(args, 'cwd') === undefined
              ? {}
              : { cwd: promptArgument(args, 'cwd') as string }),
            ...(promptArgument(args, 'provider') === undefined
              ? {}
              : { provider: promptArgument(args, 'provider') as string }),
            ...(promptArgument(args, 'model') === undefined
              ? {}
              : { model: promptArgument(args, 'model') as string }),
          });
        } catch (error) {
          throw new ProtocolError(
            ProtocolErrorCode.InternalError,
            `[${DshErrorCode.PROMPT_FAILED}] ${describeError(error)}`,
          );
        }
        if (utf8Length(rendered.prompt) > MCP_LIMITS.dshPromptBytes) {
          throw new ProtocolError(
            ProtocolErrorCode.InternalError,
            `[${DshErrorCode.PROMPT_FAILED}] the system prompt has ${utf8Length(rendered.prompt)} bytes; CLAT accepts at most ${MCP_LIMITS.dshPromptBytes}`,
          );
        }
        return {
          messages:
            rendered.prompt === ''
              ? []
              : [
                  {
                    role: 'user' as const,
                    content: { type: 'text' as const, text: rendered.prompt },
                  },
                ],
          _meta: {
            [SYSTEM_PROMPT_META]: rendered.prompt,
            [RUNTIME_CONTEXT_META]: rendered.context,
          },
        };
      });
    }
    server.onerror = (error) => log(`[clat-dsh:${name}] ${error.message}`);
    return server;
  };

  const stdio =
    internal.recorder === undefined
      ? serveStdio(
          async () => {
            await ready.promise;
            return createServer();
          },
          { transport: wire, onerror: (error) => log(`[clat-dsh:${name}] ${error.message}`) },
        )
      : undefined;

  const shutdown = (): Promise<void> => {
    shuttingDown ??= (async () => {
      for (const controller of running) {
        controller.abort(new DshAdapterError(DshErrorCode.DISPOSED, 'the server is shutting down'));
      }
      await stdio
        ?.close()
        .catch((error: unknown) => log(`[clat-dsh:${name}] ${describeError(error)}`));
      await wire.close();
      await runtime.dispose();
      closed.resolve();
    })();
    return shuttingDown;
  };
  void wire.closed.then(() => shutdown());

  try {
    const config = normalized.validateConfig(options.config === undefined ? {} : options.config);
    assertServicesAvailable(normalized.inject, (service) => runtime.isAvailable(service));
    await withDeadline(
      normalized.start(runtime.ctx as DshContext, config, runtime.stack),
      MCP_LIMITS.legacyHandshakeMs,
      `apply() of ${name}`,
    );
  } catch (error) {
    const failure = isDshAdapterError(error)
      ? error
      : new DshAdapterError(
          DshErrorCode.APPLY_FAILED,
          `apply() of ${name} failed: ${describeError(error)}`,
          {
            cause: error,
          },
        );
    log(`[clat-dsh:${name}] startup failed: [${failure.code}] ${failure.message}`);
    ready.reject(failure);
    await shutdown();
    throw failure;
  }
  // A hint for a tool the plugin never registered is almost always a typo that would leave the
  // real tool Destructive; say so where the author looks (stderr), without failing the server.
  const served = new Set(runtime.servedTools().map((tool) => tool.name));
  const unknownHints = Object.keys(toolHints).filter((tool) => !served.has(tool));
  if (unknownHints.length > 0) {
    log(
      `[clat-dsh:${name}] toolHints name tools the plugin did not register: ${unknownHints.join(', ')}`,
    );
  }
  ready.resolve();

  return {
    name,
    version,
    listTools: () => runtime.servedTools().map(summary),
    hasSystemPrompt: () => runtime.systemPrompt.hasContributions(),
    dispose: shutdown,
    closed: closed.promise,
  };
}

async function withDeadline<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () =>
        reject(
          new DshAdapterError(DshErrorCode.APPLY_FAILED, `${what} did not settle within ${ms} ms`),
        ),
      ms,
    );
  });
  try {
    return await Promise.race([work, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

async function executeTool(
  tool: ServedTool,
  args: Record<string, unknown>,
  scope: CallScope,
  warn: (message: string) => void,
): Promise<unknown> {
  if (!isJsonObject(args)) {
    throw new DshAdapterError(
      DshErrorCode.BAD_REQUEST,
      `arguments of tool ${tool.name} must be an object`,
    );
  }
  const exec: ToolRunContext = {
    callId: scope.callId,
    name: tool.name,
    arguments: args,
    signal: scope.signal,
    deferContext: () =>
      warn(`tool ${tool.name}: deferContext() has no MCP equivalent and was ignored`),
    concludeTurn: () =>
      warn(`tool ${tool.name}: concludeTurn() has no MCP equivalent and was ignored`),
  };
  let timer: ReturnType<typeof setTimeout> | undefined;
  const aborted = new Promise<never>((_, reject) => {
    const fail = () =>
      reject(
        isDshAdapterError(scope.signal.reason)
          ? scope.signal.reason
          : new DshAdapterError(DshErrorCode.ABORTED, `tool ${tool.name} was cancelled`),
      );
    if (scope.signal.aborted) fail();
    else scope.signal.addEventListener('abort', fail, { once: true });
    if (tool.timeoutMs !== undefined) {
      timer = setTimeout(
        () =>
          reject(
            new DshAdapterError(
              DshErrorCode.ABORTED,
              `tool ${tool.name} timed out after ${tool.timeoutMs} ms`,
            ),
          ),
        tool.timeoutMs,
      );
    }
  });
  aborted.catch(() => {});
  try {
    return await Promise.race([Promise.resolve().then(() => tool.execute(args, exec)), aborted]);
  } finally {
    if (timer !== undefined) clearTimeout(timer);
  }
}

/**
 * The MCP face of the gateway: one `Server` (official SDK v2) per connection over the host's
 * registry. Every call runs through the kernel pipeline with the gateway's mode; an effect the
 * mode asks about becomes an elicitation when the client offers one, else a denial.
 * @module
 */
import {
  type Approver,
  errorMessage,
  isClatError,
  type PermissionMode,
  type RunContext,
  sanitizeTerminalText,
} from '@clat/kernel';
import {
  type CallToolResult,
  CLIENT_CAPABILITIES_META_KEY,
  type ClientCapabilities,
  ProtocolError,
  ProtocolErrorCode,
  Server,
  type ServerContext,
  type Tool,
} from '@modelcontextprotocol/server';
import { EFFECT_ANNOTATIONS, toolMeta } from './annotations.js';
import type { GatewayHost } from './compose.js';
import { GATEWAY_VERSION } from './version.js';

export const STATUS_URI = 'clat://status';

export interface GatewayServerOptions {
  host: GatewayHost;
  mode: PermissionMode;
  /** Stable id of the gateway's one long run (events, plugin host services). */
  runId: string;
  /** Aborted when the gateway shuts down: every running call is cancelled. */
  signal: AbortSignal;
}

function errorResult(text: string): CallToolResult {
  return { content: [{ type: 'text', text }], isError: true };
}

/** Asks the client through legacy-era elicitation; anything but an explicit yes is a denial. */
function elicitingApprover(ctx: ServerContext, mode: PermissionMode): Approver {
  return {
    async approve(request, signal) {
      const result = await ctx.mcpReq.elicitInput(
        {
          mode: 'form',
          message: `CLAT (${mode} mode) asks before running ${request.tool}, which has ${request.effect} effects. Arguments: ${JSON.stringify(request.arguments)}`,
          requestedSchema: {
            type: 'object',
            properties: {
              approve: { type: 'boolean', title: `Run ${request.tool}?`, default: false },
            },
            required: ['approve'],
          },
        },
        { signal },
      );
      if (result.action === 'accept' && result.content?.approve === true) {
        return { outcome: 'allow' };
      }
      return { outcome: 'deny', reason: `the MCP client answered ${result.action}` };
    },
  };
}

/** Denies with the reason a person can act on: the client cannot be asked. */
function refusingApprover(mode: PermissionMode): Approver {
  return {
    async approve(request) {
      return {
        outcome: 'deny',
        reason: `the ${mode} mode asks before ${request.effect} effects and this MCP client offers no elicitation; restart clat-gateway with --mode full-access to allow it`,
      };
    },
  };
}

/** The pipeline stages before the result, reported as progress when the client asked for it. */
const STAGES: Readonly<Record<string, { progress: number; message: string }>> = {
  'tool.approved': { progress: 1, message: 'approved' },
  'tool.started': { progress: 2, message: 'running' },
};
// The third step is the result itself: a progress notification after it would be dropped.
const STAGE_TOTAL = 3;

/**
 * Sends `notifications/progress` for this call's pipeline stages (approved, running) when the
 * request carries a progress token. The returned `settle` unsubscribes and waits for the sends,
 * so no progress can trail the result (the client drops progress after the response).
 */
function reportStages(
  host: GatewayHost,
  callId: string,
  token: string | number | undefined,
  ctx: ServerContext,
): () => Promise<void> {
  if (token === undefined) return async () => {};
  const sends: Promise<void>[] = [];
  const unsubscribe = host.events.on((event) => {
    if (!('callId' in event) || event.callId !== callId) return;
    const stage = STAGES[event.type];
    if (stage === undefined) return;
    const send = ctx.mcpReq
      .notify({
        method: 'notifications/progress',
        params: {
          progressToken: token,
          progress: stage.progress,
          total: STAGE_TOTAL,
          message: stage.message,
        },
      })
      .catch(() => {});
    sends.push(send);
  });
  return async () => {
    unsubscribe();
    await Promise.all(sends);
  };
}

export function createGatewayServer(options: GatewayServerOptions): Server {
  const { host, mode } = options;
  const server = new Server(
    { name: 'clat-gateway', version: GATEWAY_VERSION },
    { capabilities: { tools: { listChanged: false }, resources: {} } },
  );
  const capabilitiesOf = (ctx: ServerContext): ClientCapabilities | undefined =>
    ((ctx.mcpReq.envelope as Record<string, unknown> | undefined)?.[CLIENT_CAPABILITIES_META_KEY] as
      | ClientCapabilities
      | undefined) ?? server.getClientCapabilities();

  server.setRequestHandler('tools/list', () => ({
    tools: host.registry.list().map(
      (definition): Tool => ({
        name: definition.name,
        description: definition.description,
        inputSchema: definition.inputSchema as Tool['inputSchema'],
        annotations: { ...EFFECT_ANNOTATIONS[definition.effect] },
        _meta: toolMeta(definition.effect, mode),
      }),
    ),
  }));

  server.setRequestHandler('tools/call', async (request, ctx): Promise<CallToolResult> => {
    const name = request.params.name;
    if (typeof name !== 'string' || name === '') {
      throw new ProtocolError(ProtocolErrorCode.InvalidParams, 'tools/call needs a tool name');
    }
    const signal = AbortSignal.any([ctx.mcpReq.signal, options.signal]);
    // Elicitation is a legacy-era push request; a modern-era client is asked nowhere yet.
    const canElicit =
      capabilitiesOf(ctx)?.elicitation !== undefined &&
      (ctx.mcpReq.envelope as Record<string, unknown> | undefined)?.[
        CLIENT_CAPABILITIES_META_KEY
      ] === undefined;
    const run: RunContext = {
      runId: options.runId,
      mode,
      signal,
      approver: canElicit ? elicitingApprover(ctx, mode) : refusingApprover(mode),
    };
    const callId = `gateway-${String(ctx.mcpReq.id)}`;
    const settleProgress = reportStages(host, callId, request.params._meta?.progressToken, ctx);
    try {
      const result = await host.pipeline.call(name, request.params.arguments ?? {}, run, {
        callId,
      });
      const out: CallToolResult = { content: [{ type: 'text', text: result.content }] };
      if (result.isError === true) out.isError = true;
      if (result.structured !== null && typeof result.structured === 'object') {
        out.structuredContent = result.structured as Record<string, unknown>;
      }
      return out;
    } catch (error) {
      const code = isClatError(error) ? `[${error.code}] ` : '';
      return errorResult(`${code}${errorMessage(error)}`);
    } finally {
      await settleProgress();
    }
  });

  server.setRequestHandler('resources/list', () => ({
    resources: [
      {
        uri: STATUS_URI,
        name: 'status',
        description: 'The servers this gateway mounted, as /mcp shows them (secrets redacted)',
        mimeType: 'application/json',
      },
    ],
  }));

  server.setRequestHandler('resources/read', (request) => {
    if (request.params.uri !== STATUS_URI) {
      throw new ProtocolError(
        ProtocolErrorCode.InvalidParams,
        `resource ${JSON.stringify(request.params.uri)} does not exist; this gateway serves ${STATUS_URI}`,
      );
    }
    const status = {
      projectRoot: host.projectRoot,
      mode,
      tools: host.registry.list().length,
      configIssues: host.configIssues,
      servers: host.status(),
    };
    return {
      contents: [
        { uri: STATUS_URI, mimeType: 'application/json', text: JSON.stringify(status, null, 2) },
      ],
    };
  });

  server.onerror = (error) => {
    process.stderr.write(`clat-gateway: ${sanitizeTerminalText(error.message)}\n`);
  };
  return server;
}

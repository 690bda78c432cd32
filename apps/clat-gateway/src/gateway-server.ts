/**
 * The MCP face of the gateway: one `Server` (official SDK v2) per connection over the shared
 * runtime. Every call runs through the kernel pipeline with the gateway's mode; an effect the
 * mode asks about, and a plugin's sampling request, go to the calling client when it offers
 * elicitation / sampling (a push request on a legacy connection, an `input_required` round on a
 * 2026-07-28 one), else they are denied with a reason a person can act on.
 * @module
 */
import {
  errorMessage,
  isClatError,
  type RunContext,
  sanitizeTerminalText,
  type ToolSourceRef,
} from '@clat/kernel';
import {
  type CallToolResult,
  CLIENT_CAPABILITIES_META_KEY,
  type ClientCapabilities,
  type InputRequiredResult,
  PROTOCOL_VERSION_META_KEY,
  ProtocolError,
  ProtocolErrorCode,
  Server,
  type ServerContext,
  type Tool,
} from '@modelcontextprotocol/server';
import { EFFECT_ANNOTATIONS, toolMeta } from './annotations.js';
import {
  type AskClient,
  clientSampler,
  elicitingApprover,
  pushAsk,
  refusingApprover,
} from './client-asks.js';
import { clientFormAsker, clientQuestionAsker } from './client-forms.js';
import type { GatewayRuntime } from './gateway-runtime.js';
import { relayProgress } from './progress-relay.js';
import { GATEWAY_VERSION } from './version.js';

export const STATUS_URI = 'clat://status';

/** Tools nobody owns (native host tools) still route: no plugin request names them. */
const NATIVE: ToolSourceRef = { kind: 'native', id: '' };

function errorResult(text: string): CallToolResult {
  return { content: [{ type: 'text', text }], isError: true };
}

/** Runs one call through the pipeline with this client's asks; errors become tool errors. */
async function runCall(
  runtime: GatewayRuntime,
  name: string,
  args: Record<string, unknown>,
  callId: string,
  asks: { ask: AskClient | undefined; elicit: boolean; sample: boolean; modern: boolean },
  signal: AbortSignal,
): Promise<CallToolResult> {
  const { mode } = runtime;
  // One approver answers the call itself and the plugin's requests while it runs.
  const approver =
    asks.ask !== undefined && asks.elicit
      ? elicitingApprover(asks.ask, mode)
      : refusingApprover(mode);
  const elicits = asks.ask !== undefined && asks.elicit;
  let leave = (): void => {};
  try {
    // After the run opened: the first call waits for the surface, so the owner is known.
    const run = await runtime.run();
    leave = runtime.router.enter({
      plugin: runtime.gateway.host.registry.get(name)?.definition.source ?? NATIVE,
      approver,
      sample: asks.ask !== undefined && asks.sample ? clientSampler(asks.ask) : undefined,
      noSampling: asks.modern
        ? "this MCP client did not declare sampling on its request, so clat-gateway refuses the plugin's sampling request"
        : "this MCP client offers no sampling, so clat-gateway refuses the plugin's sampling request",
      askForm: elicits ? clientFormAsker(asks.ask as AskClient) : undefined,
    });
    const context: RunContext = {
      runId: run.context.runId,
      mode,
      signal: AbortSignal.any([signal, run.context.signal]),
      approver,
    };
    // The client's own ask_user calls ask the client; without elicitation they fail closed.
    if (elicits) context.asker = clientQuestionAsker(asks.ask as AskClient);
    const result = await runtime.gateway.host.pipeline.call(name, args, context, { callId });
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
    leave();
  }
}

export interface GatewayServerOptions {
  /**
   * Send `tools/list_changed` from this instance (a stdio connection, either era: the SDK routes
   * it to the modern client's `subscriptions/listen`). Per-request HTTP instances leave it to
   * the handler's notifier (see `http-serve.ts`).
   */
  announce?: boolean;
}

export function createGatewayServer(
  runtime: GatewayRuntime,
  options: GatewayServerOptions = {},
): Server {
  const { mode } = runtime;
  const host = runtime.gateway.host;
  const server = new Server(
    { name: 'clat-gateway', version: GATEWAY_VERSION },
    { capabilities: { tools: { listChanged: true }, resources: {} } },
  );
  const envelopeOf = (ctx: ServerContext) =>
    ctx.mcpReq.envelope as Record<string, unknown> | undefined;
  const capabilitiesOf = (ctx: ServerContext): ClientCapabilities | undefined =>
    (envelopeOf(ctx)?.[CLIENT_CAPABILITIES_META_KEY] as ClientCapabilities | undefined) ??
    server.getClientCapabilities();

  server.setRequestHandler('tools/list', async () => {
    await runtime.surface();
    runtime.listed();
    return {
      tools: host.registry.list().map(
        (definition): Tool => ({
          name: definition.name,
          description: definition.description,
          inputSchema: definition.inputSchema as Tool['inputSchema'],
          annotations: { ...EFFECT_ANNOTATIONS[definition.effect] },
          _meta: toolMeta(definition.effect, mode),
        }),
      ),
    };
  });

  server.setRequestHandler(
    'tools/call',
    async (request, ctx): Promise<CallToolResult | InputRequiredResult> => {
      const name = request.params.name;
      if (typeof name !== 'string' || name === '') {
        throw new ProtocolError(ProtocolErrorCode.InvalidParams, 'tools/call needs a tool name');
      }
      const args = request.params.arguments ?? {};
      const capabilities = capabilitiesOf(ctx);
      const modern = envelopeOf(ctx)?.[PROTOCOL_VERSION_META_KEY] !== undefined;
      const elicit = capabilities?.elicitation !== undefined;
      const sample = capabilities?.sampling !== undefined;
      const token = request.params._meta?.progressToken;
      if (!modern) {
        const callId = runtime.nextCallId();
        const settle = relayProgress({
          events: host.events,
          callId,
          token,
          ctx,
          legacy: true,
        });
        try {
          const signal = AbortSignal.any([ctx.mcpReq.signal, runtime.shutdown]);
          const ask = elicit || sample ? pushAsk(ctx) : undefined;
          return await runCall(
            runtime,
            name,
            args,
            callId,
            { ask, elicit, sample, modern },
            signal,
          );
        } finally {
          await settle();
        }
      }
      const callId = runtime.rounds.callIdOf(ctx) ?? runtime.nextCallId();
      const settle = relayProgress({ events: host.events, callId, token, ctx, legacy: false });
      try {
        return await runtime.rounds.serve(ctx, name, args, callId, (ask, signal) =>
          runCall(runtime, name, args, callId, { ask, elicit, sample, modern }, signal),
        );
      } finally {
        await settle();
      }
    },
  );

  server.setRequestHandler('resources/list', () => ({
    resources: [
      {
        uri: STATUS_URI,
        name: 'status',
        description: 'The plugins this gateway mounted, as /mcp shows them (secrets redacted)',
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
      projectRoot: runtime.gateway.projectRoot,
      mode,
      frozen: host.registry.frozen,
      tools: host.registry.list().length,
      configIssues: runtime.gateway.configIssues,
      notes: runtime.gateway.notes,
      servers: runtime.gateway.status(),
    };
    return {
      contents: [
        { uri: STATUS_URI, mimeType: 'application/json', text: JSON.stringify(status, null, 2) },
      ],
    };
  });

  if (options.announce !== false) {
    const stopAnnouncing = runtime.onSurfaceChanged(() => {
      server.sendToolListChanged().catch(() => {});
    });
    const previousOnClose = server.onclose;
    server.onclose = () => {
      stopAnnouncing();
      previousOnClose?.();
    };
  }
  server.onerror = (error) => {
    process.stderr.write(`clat-gateway: ${sanitizeTerminalText(error.message)}\n`);
  };
  return server;
}

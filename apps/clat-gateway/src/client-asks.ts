/**
 * What the gateway asks its MCP client during a call, in one shape for both eras: an approval
 * (form elicitation with one boolean) and a completion (`sampling/createMessage`, text only).
 * `AskClient` sends one embedded request and returns the client's bare result: a push request on
 * a legacy connection, an `input_required` round on a 2026-07-28 one (see `input-rounds.ts`).
 * Every answer is untrusted and read defensively.
 * @module
 */
import {
  type Approver,
  decide,
  type ModelRequest,
  type ModelResponse,
  PERMISSION_MODES,
  type PermissionMode,
} from '@clat/kernel';
import type { InputRequest, ServerContext } from '@modelcontextprotocol/server';
import type { ClientSampler } from './call-router.js';

export type AskClient = (request: InputRequest, signal: AbortSignal) => Promise<unknown>;

/** The legacy way: a server→client request sent while the call runs. */
export function pushAsk(ctx: ServerContext): AskClient {
  return (request, signal) => {
    if (request.method === 'elicitation/create') {
      return ctx.mcpReq.elicitInput(
        request.params as Parameters<ServerContext['mcpReq']['elicitInput']>[0],
        { signal },
      );
    }
    if (request.method === 'sampling/createMessage') {
      return ctx.mcpReq.requestSampling(request.params, { signal });
    }
    return Promise.reject(new Error(`clat-gateway does not ask ${request.method}`));
  };
}

/** Asks the client through elicitation; anything but an explicit yes is a denial. */
export function elicitingApprover(ask: AskClient, mode: PermissionMode): Approver {
  return {
    async approve(request, signal) {
      const answer = (await ask(
        {
          method: 'elicitation/create',
          params: {
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
        },
        signal,
      )) as { action?: unknown; content?: { approve?: unknown } } | null;
      if (answer?.action === 'accept' && answer.content?.approve === true) {
        return { outcome: 'allow' };
      }
      const action = typeof answer?.action === 'string' ? answer.action : 'with no action';
      return { outcome: 'deny', reason: `the MCP client answered ${action}` };
    },
  };
}

/** Denies with the reason a person can act on: the client cannot be asked. */
export function refusingApprover(mode: PermissionMode): Approver {
  return {
    async approve(request) {
      return {
        outcome: 'deny',
        // The narrowest mode that allows the effect: full-access for a read would allow far more.
        reason: `the ${mode} mode asks before ${request.effect} effects and this MCP client offers no elicitation; restart clat-gateway with --mode ${PERMISSION_MODES.find((wider) => decide(wider, request.effect) === 'allow') ?? 'full-access'} to allow it`,
      };
    },
  };
}

/** The calling client's sampling, after the bridge's gates (payload, budget, approval). */
export function clientSampler(ask: AskClient): ClientSampler {
  return async (request: ModelRequest, signal): Promise<ModelResponse> => {
    const answer = (await ask(
      {
        method: 'sampling/createMessage',
        params: {
          messages: request.messages.map((message) => ({
            role: message.role,
            content: { type: 'text', text: message.text },
          })),
          maxTokens: request.maxTokens,
          ...(request.system === undefined ? {} : { systemPrompt: request.system }),
          ...(request.temperature === undefined ? {} : { temperature: request.temperature }),
        },
      },
      signal,
    )) as { model?: unknown; content?: unknown; stopReason?: unknown } | null;
    const blocks = Array.isArray(answer?.content) ? answer.content : [answer?.content];
    const texts = blocks.filter(
      (block): block is { type: 'text'; text: string } =>
        typeof block === 'object' &&
        block !== null &&
        (block as { type?: unknown }).type === 'text' &&
        typeof (block as { text?: unknown }).text === 'string',
    );
    if (texts.length === 0) {
      throw new Error('the MCP client answered the sampling request without text content');
    }
    return {
      text: texts.map((block) => block.text).join(''),
      model: typeof answer?.model === 'string' ? answer.model : 'unknown',
      stopReason: typeof answer?.stopReason === 'string' ? answer.stopReason : 'endTurn',
      // The client reports no usage: the bridge keeps the budget reservation.
      usage: null,
    };
  };
}

/**
 * Routes what a plugin asks the host for during a gateway call (a sampling request, an
 * elicitation form, the approval of one of its host-tool calls or of its sampling) to the MCP client whose `tools/call` is
 * running that plugin. The kernel bridge serves one run; the gateway's run is shared by every
 * connection, so the bridge's approver, asker and model are these routers, keyed by the plugin
 * (`ToolSourceRef`) the request names. Two clients calling the same plugin at once: the oldest
 * call answers (its client is the one the plugin is most likely serving).
 * @module
 */
import {
  type ApprovalDecision,
  type Approver,
  type FormAnswer,
  type FormQuestion,
  KernelError,
  KernelErrorCode,
  type ModelProvider,
  type ModelRequest,
  type ModelResponse,
  type ToolSourceRef,
  type UserAsker,
} from '@clat/kernel';

/** Asks the calling client for a completion; absent when the client offers no sampling. */
export type ClientSampler = (request: ModelRequest, signal: AbortSignal) => Promise<ModelResponse>;

/** Asks the calling client a plugin's whole form; absent when the client offers no elicitation. */
export type ClientFormAsker = (question: FormQuestion, signal: AbortSignal) => Promise<FormAnswer>;

/** One running gateway call as the router sees it. */
export interface RoutedCall {
  /** The plugin that owns the called tool. */
  readonly plugin: ToolSourceRef;
  readonly approver: Approver;
  readonly sample: ClientSampler | undefined;
  /** Why `sample` is absent, as one sentence a person can act on. */
  readonly noSampling: string;
  readonly askForm: ClientFormAsker | undefined;
}

function samePlugin(a: ToolSourceRef, b: ToolSourceRef | undefined): boolean {
  return b !== undefined && a.kind === b.kind && a.id === b.id;
}

export class CallRouter {
  /** Insertion order is call order: the first match is the oldest call. */
  readonly #calls = new Set<RoutedCall>();

  /** Registers a running call; the returned function removes it (idempotent). */
  enter(call: RoutedCall): () => void {
    this.#calls.add(call);
    return () => {
      this.#calls.delete(call);
    };
  }

  callOf(plugin: ToolSourceRef | undefined): RoutedCall | undefined {
    for (const call of this.#calls) if (samePlugin(call.plugin, plugin)) return call;
    return undefined;
  }

  /** The bridge run's approver: the calling client decides, as for the call itself. */
  readonly approver: Approver = {
    approve: async (request, signal): Promise<ApprovalDecision> => {
      const call = this.callOf(request.source);
      if (call === undefined) {
        return {
          outcome: 'deny',
          reason: `no gateway call of ${request.source.kind}:${request.source.id} is running, so no MCP client can be asked`,
        };
      }
      if (request.tool.endsWith(':sampling') && call.sample === undefined) {
        return { outcome: 'deny', reason: call.noSampling };
      }
      return call.approver.approve(request, signal);
    },
  };

  /**
   * The bridge run's asker: a plugin's elicitation form goes, whole, to the client whose call
   * runs that plugin. A plugin's own `ask_user` call names no plugin to route by, so it fails
   * with a sentence instead of reaching a client that did not call it.
   */
  readonly asker: UserAsker = {
    ask: async () => {
      throw new KernelError(
        KernelErrorCode.ELICITATION_NO_FRONTEND,
        "clat-gateway cannot tell which MCP client a plugin's ask_user question is for, so it refuses it; the plugin can ask through elicitation instead",
      );
    },
    askForm: async (question, signal) => {
      const call = this.callOf(question.source);
      const label = `${question.source.kind}:${question.source.id}`;
      if (call === undefined) {
        throw new KernelError(
          KernelErrorCode.ELICITATION_NO_FRONTEND,
          `no gateway call of ${label} is running, so no MCP client can answer its elicitation`,
        );
      }
      if (call.askForm === undefined) {
        throw new KernelError(
          KernelErrorCode.ELICITATION_NO_FRONTEND,
          `the MCP client calling ${label} offers no elicitation, so clat-gateway cannot ask its question`,
        );
      }
      return call.askForm(question, signal);
    },
  };

  /** The bridge run's session model: the calling client's sampling, after the bridge's gates. */
  readonly model: ModelProvider = {
    name: 'the MCP client of clat-gateway',
    model: 'chosen by the MCP client',
    complete: async (request, signal) => {
      const call = this.callOf(request.source);
      const refuse = (reason: string): never => {
        throw new KernelError(KernelErrorCode.SAMPLING_UNAVAILABLE, reason);
      };
      if (call === undefined) {
        return refuse(
          `no gateway call of ${request.source?.kind ?? 'an unknown'}:${request.source?.id ?? 'plugin'} is running, so no MCP client can answer its sampling request`,
        );
      }
      if (call.sample === undefined) return refuse(call.noSampling);
      return call.sample(request, signal);
    },
  };
}

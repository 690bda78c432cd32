/**
 * Ports the host asks its frontend for: approvals and questions. The TUI, `clat exec`, tests
 * and custom distributions each bring their own implementation.
 * @module
 */
import type { ElicitationFieldRule } from './bridge/elicitation-flow.js';
import type { ElicitationForm } from './contract/plugin-contract.js';
import type { Effect } from './effects.js';
import type { ToolSourceRef } from './events.js';

export interface ApprovalRequest {
  callId: string;
  /** What is being approved: a tool name, `mcp:<server>:sampling`, `wasm:<p>:host:<tool>`… */
  tool: string;
  effect: Effect;
  source: ToolSourceRef;
  reason: string;
  /** The complete arguments (for sampling: the complete outbound payload), never a preview. */
  arguments: unknown;
}

export type ApprovalDecision = { outcome: 'allow' } | { outcome: 'deny'; reason?: string };

/** Answers permission prompts. A thrown error or an aborted signal counts as deny. */
export interface Approver {
  approve(request: ApprovalRequest, signal: AbortSignal): Promise<ApprovalDecision>;
}

export interface UserQuestionOption {
  label: string;
  description?: string;
}

export interface UserQuestion {
  question: string;
  /** Single-choice options; absent means free text. */
  options?: UserQuestionOption[];
  /** With options: whether a typed answer outside the options is accepted. */
  allowCustom?: boolean;
  /** Pre-filled answer. */
  defaultAnswer?: string;
  /**
   * With options: several may be picked (none too, when the question allows it). The answer
   * names them in `selected`; a frontend without it may list labels in `text`, comma-separated.
   */
  multiSelect?: boolean;
  /**
   * The plugin that asks (elicitation); absent when the model asks (`ask_user`). A frontend names
   * it, so a server cannot pass its question off as CLAT's own.
   */
  source?: ToolSourceRef;
}

/** `cancelled` is Esc (abandon the whole interaction); `declined` is an explicit refusal. */
export type UserAnswer =
  | { kind: 'answer'; text: string; selected?: string[] }
  | { kind: 'declined' }
  | { kind: 'cancelled' };

/** A plugin's whole elicitation form, already checked by the bridge (shape and limits). */
export interface FormQuestion {
  form: ElicitationForm;
  /** Answer checks per field name, as the plugin's translator knew them (ranges, formats…). */
  rules: Readonly<Record<string, ElicitationFieldRule>>;
  /** The plugin that asks. */
  source: ToolSourceRef;
}

/**
 * A whole-form answer: `content` maps field names to plain values (text, number, boolean, or a
 * list of option labels for a multi-select). The bridge checks every value as it checks a
 * typed answer; nothing here is trusted.
 */
export type FormAnswer =
  | { action: 'accept'; content: Readonly<Record<string, unknown>> }
  | { action: 'decline' }
  | { action: 'cancel' };

/** The one question port, used by `ask_user` and by elicitation. */
export interface UserAsker {
  ask(question: UserQuestion, signal: AbortSignal): Promise<UserAnswer>;
  /**
   * Optional: asks a plugin's elicitation form in one piece instead of field by field. A frontend
   * that forwards to another asker with forms of its own (clat-gateway to its MCP client)
   * implements it; a terminal does not need it.
   */
  askForm?(question: FormQuestion, signal: AbortSignal): Promise<FormAnswer>;
}

export interface ModelMessage {
  role: 'user' | 'assistant';
  text: string;
}

export interface ModelRequest {
  system?: string;
  messages: ModelMessage[];
  maxTokens: number;
  temperature?: number;
  /**
   * The plugin whose sampling request this is (set by the PluginHostBridge): a provider that
   * forwards sampling elsewhere, such as clat-gateway to its MCP client, routes by it.
   */
  source?: ToolSourceRef;
}

export interface ModelResponse {
  text: string;
  /** The model id that answered. */
  model: string;
  stopReason: 'endTurn' | 'maxTokens' | 'stopSequence' | 'toolUse' | 'refusal' | (string & {});
  /** Real usage when the provider reports it; null keeps the budget reservation. */
  usage: { inputTokens: number; outputTokens: number } | null;
}

/** The active session model as the host sees it (sampling uses it; plugins never pick another). */
export interface ModelProvider {
  /** Display name, e.g. `openai-compatible (glm)`. */
  readonly name: string;
  readonly model: string;
  complete(request: ModelRequest, signal: AbortSignal): Promise<ModelResponse>;
}

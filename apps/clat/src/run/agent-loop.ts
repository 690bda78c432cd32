/**
 * The agent loop: the model proposes tool calls, each goes through the one pipeline (permission,
 * cancellation, result bound), results go back to the model, until it answers without tools.
 * @module
 */
import {
  errorMessage,
  type Host,
  type HostRun,
  isClatError,
  KernelErrorCode,
  type ToolResult,
} from '@clat/kernel';
import type {
  ChatContentPart,
  ChatMessage,
  ChatTool,
  ChatToolCall,
  ChatUsage,
  OpenAiCompatibleProvider,
} from '@clat/provider-openai';
import { toolImageParts, toolImagesMessage } from './tool-images.js';

/** Model round trips of one prompt before the loop stops (a runaway-tool-loop guard). */
export const AGENT_MAX_STEPS = 32;

const BASE_SYSTEM_PROMPT =
  'You are CLAT, a terminal coding agent. Use the tools to inspect and change the project; ' +
  'every tool call is checked against the permission mode. Answer concisely.';

export interface AgentCallbacks {
  onText?(delta: string): void;
  onToolCall?(call: ChatToolCall): void;
  onToolResult?(call: ChatToolCall, outcome: { result?: ToolResult; error?: string }): void;
}

export interface AgentTurnOptions extends AgentCallbacks {
  provider: OpenAiCompatibleProvider;
  session: Host;
  run: HostRun;
  /** Conversation so far (without the system prompt); the new prompt is appended. */
  history: ChatMessage[];
  prompt: string;
  /** The turn as messages (a rendered server prompt); appended instead of `prompt`. */
  messages?: readonly ChatMessage[];
  maxSteps?: number;
}

export interface AgentTurnResult {
  text: string;
  steps: number;
  toolCalls: number;
  /** True when the loop stopped at the step limit rather than at a final answer. */
  exhausted: boolean;
  /** The model that answered the last step, as the server named it. */
  model: string | undefined;
  /** Tokens over every step; undefined when the server reported none. */
  usage: ChatUsage | undefined;
}

export function systemPrompt(session: Host): string {
  const plugins = session.prompts.assemble();
  return plugins === '' ? BASE_SYSTEM_PROMPT : `${BASE_SYSTEM_PROMPT}\n\n${plugins}`;
}

export function chatTools(session: Host): ChatTool[] {
  return session.registry.list().map((tool) => ({
    name: tool.name,
    description: tool.description,
    parameters: tool.inputSchema,
  }));
}

async function runToolCall(
  options: AgentTurnOptions,
  call: ChatToolCall,
): Promise<{ content: string; result?: ToolResult; error?: string }> {
  let args: unknown;
  try {
    args = call.arguments.trim() === '' ? {} : JSON.parse(call.arguments);
  } catch (error) {
    const message = `arguments of ${call.name} are not valid JSON: ${errorMessage(error)}`;
    return { content: `error: ${message}`, error: message };
  }
  try {
    const result = await options.session.pipeline.call(call.name, args, options.run.context, {
      callId: call.id,
    });
    return { content: result.isError ? `error: ${result.content}` : result.content, result };
  } catch (error) {
    // Cancellation ends the turn; every other host failure is shown to the model.
    if (isClatError(error) && error.code === KernelErrorCode.CANCELLED) throw error;
    const message = errorMessage(error);
    const code = isClatError(error) ? ` [${error.code}]` : '';
    return { content: `error${code}: ${message}`, error: message };
  }
}

/** Runs one user prompt to a final answer; appends every message to `history`. */
export async function runAgentTurn(options: AgentTurnOptions): Promise<AgentTurnResult> {
  const { provider, session, run, history } = options;
  const maxSteps = options.maxSteps ?? AGENT_MAX_STEPS;
  if (options.messages === undefined) history.push({ role: 'user', content: options.prompt });
  else history.push(...options.messages);
  const tools = chatTools(session);
  let toolCalls = 0;
  let model: string | undefined;
  let usage: ChatUsage | undefined;
  for (let step = 1; step <= maxSteps; step++) {
    run.token.throwIfCancelled('the model call');
    const response = await provider.chat(
      {
        messages: [{ role: 'system', content: systemPrompt(session) }, ...history],
        ...(tools.length === 0 ? {} : { tools }),
        ...(options.onText === undefined ? {} : { onText: options.onText }),
      },
      run.context.signal,
    );
    model = response.model;
    if (response.usage !== null) {
      usage = {
        inputTokens: (usage?.inputTokens ?? 0) + response.usage.inputTokens,
        outputTokens: (usage?.outputTokens ?? 0) + response.usage.outputTokens,
      };
    }
    history.push({
      role: 'assistant',
      content: response.text,
      ...(response.toolCalls.length === 0 ? {} : { toolCalls: response.toolCalls }),
    });
    if (response.toolCalls.length === 0) {
      return { text: response.text, steps: step, toolCalls, exhausted: false, model, usage };
    }
    const images: ChatContentPart[] = [];
    let answered = 0;
    try {
      for (const call of response.toolCalls) {
        options.onToolCall?.(call);
        const outcome = await runToolCall(options, call);
        toolCalls++;
        options.onToolResult?.(call, {
          ...(outcome.result === undefined ? {} : { result: outcome.result }),
          ...(outcome.error === undefined ? {} : { error: outcome.error }),
        });
        history.push({ role: 'tool', toolCallId: call.id, content: outcome.content });
        answered++;
        if (provider.acceptsImages) images.push(...toolImageParts(call, outcome.result));
      }
    } catch (error) {
      // The turn ends here (a cancel), but the conversation goes on: the API refuses every later
      // request whose history has a tool call without its result, so each unanswered call of the
      // step gets one that says why it has none.
      const reason = errorMessage(error);
      for (const call of response.toolCalls.slice(answered)) {
        history.push({
          role: 'tool',
          toolCallId: call.id,
          content: `error: not completed: ${reason}`,
        });
      }
      throw error;
    }
    // After every tool message of the step: the API wants those right after the tool calls.
    const imageMessage = toolImagesMessage(images);
    if (imageMessage !== undefined) history.push(imageMessage);
  }
  return { text: '', steps: maxSteps, toolCalls, exhausted: true, model, usage };
}

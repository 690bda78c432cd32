/**
 * `ctx.llm.stream` over MCP `sampling/createMessage`: one text-only request per stream, answered
 * by the active CLAT session model (the plugin's provider/model choice is ignored).
 * @module
 */
import { isJsonObject, LIMITS } from '@clat/kernel';
import { CreateMessageResultSchema } from '@modelcontextprotocol/core';
import { DshAdapterError, DshErrorCode } from '../errors.js';
import type { HostLink } from '../host-link.js';

export interface ContentBlockLike {
  type: string;
  [key: string]: unknown;
}

export interface GenerateOptions {
  provider?: string;
  model?: string;
  messages: { role: 'system' | 'user' | 'assistant'; content: ContentBlockLike[] | string }[];
  system?: string;
  tools?: unknown[];
  temperature?: number;
  maxTokens?: number;
  stop?: string[];
  signal?: AbortSignal;
  [key: string]: unknown;
}

export type FinishReason = { kind: 'stop' } | { kind: 'tool-calls' } | { kind: 'max-tokens' };

export type StreamChunk =
  | { type: 'block-start'; index: number; blockType: string }
  | { type: 'text-delta'; index: number; text: string }
  | { type: 'block-end'; index: number; block: { type: 'text'; text: string } }
  | { type: 'finish'; reason: FinishReason };

/** DSH's default output budget when the plugin names none. */
export const DEFAULT_SAMPLING_MAX_TOKENS = 4096;

function textOf(content: unknown, where: string): string {
  if (typeof content === 'string') return content;
  const blocks = Array.isArray(content) ? content : [content];
  const parts: string[] = [];
  for (const block of blocks) {
    if (!isJsonObject(block) || typeof block.type !== 'string') {
      throw new DshAdapterError(
        DshErrorCode.BAD_REQUEST,
        `${where} has a content block without a type`,
      );
    }
    if (block.type !== 'text') {
      throw new DshAdapterError(
        DshErrorCode.NON_TEXT_CONTENT,
        `${where} carries a ${block.type} block; sampling over MCP is text-only`,
      );
    }
    if (typeof block.text !== 'string') {
      throw new DshAdapterError(DshErrorCode.BAD_REQUEST, `${where} has a text block without text`);
    }
    parts.push(block.text);
  }
  return parts.join('\n');
}

/** Builds the `sampling/createMessage` params for one `llm.stream` call. */
export function buildSamplingParams(options: GenerateOptions): Record<string, unknown> {
  if (!isJsonObject(options)) {
    throw new DshAdapterError(DshErrorCode.BAD_REQUEST, 'llm.stream needs an options object');
  }
  if (Array.isArray(options.tools) && options.tools.length > 0) {
    throw new DshAdapterError(
      DshErrorCode.TOOLS_IN_SAMPLING,
      `llm.stream was given ${options.tools.length} tool(s); MCP sampling carries no tool calling`,
    );
  }
  if (!Array.isArray(options.messages)) {
    throw new DshAdapterError(DshErrorCode.BAD_REQUEST, 'llm.stream needs a messages array');
  }
  const system: string[] = [];
  if (typeof options.system === 'string' && options.system !== '') system.push(options.system);
  const messages: { role: 'user' | 'assistant'; content: { type: 'text'; text: string } }[] = [];
  options.messages.forEach((message, index) => {
    const where = `message ${index}`;
    if (!isJsonObject(message))
      throw new DshAdapterError(DshErrorCode.BAD_REQUEST, `${where} is not an object`);
    const text = textOf(message.content, where);
    if (message.role === 'system') {
      if (text !== '') system.push(text);
    } else if (message.role === 'user' || message.role === 'assistant') {
      messages.push({ role: message.role, content: { type: 'text', text } });
    } else {
      throw new DshAdapterError(
        DshErrorCode.BAD_REQUEST,
        `${where} has unknown role ${String(message.role)}`,
      );
    }
  });
  if (messages.length === 0) {
    throw new DshAdapterError(
      DshErrorCode.BAD_REQUEST,
      'llm.stream needs at least one user or assistant message',
    );
  }
  if (messages.length > LIMITS.samplingMessages) {
    throw new DshAdapterError(
      DshErrorCode.BAD_REQUEST,
      `llm.stream has ${messages.length} messages; CLAT accepts at most ${LIMITS.samplingMessages}`,
    );
  }
  let maxTokens = DEFAULT_SAMPLING_MAX_TOKENS;
  if (options.maxTokens !== undefined) {
    if (typeof options.maxTokens !== 'number' || !(options.maxTokens >= 1)) {
      throw new DshAdapterError(
        DshErrorCode.BAD_REQUEST,
        `maxTokens must be a positive number, got ${String(options.maxTokens)}`,
      );
    }
    maxTokens = Math.floor(options.maxTokens);
  }
  const params: Record<string, unknown> = { messages, maxTokens, includeContext: 'none' };
  if (system.length > 0) params.systemPrompt = system.join('\n\n');
  if (typeof options.temperature === 'number') params.temperature = options.temperature;
  if (Array.isArray(options.stop) && options.stop.length > 0) {
    params.stopSequences = options.stop.filter((s): s is string => typeof s === 'string');
  }
  return params;
}

export interface SamplingAnswer {
  text: string;
  model: string;
  stopReason: string | undefined;
}

/** Validates a `sampling/createMessage` result and keeps its text. */
export function parseSamplingResult(result: Record<string, unknown>): SamplingAnswer {
  const parsed = CreateMessageResultSchema.safeParse(result);
  if (!parsed.success) {
    throw new DshAdapterError(
      DshErrorCode.BAD_RESPONSE,
      `sampling/createMessage returned an invalid result: ${parsed.error.message}`,
    );
  }
  const content = parsed.data.content as unknown;
  const blocks = Array.isArray(content) ? content : [content];
  const parts: string[] = [];
  for (const block of blocks) {
    if (!isJsonObject(block) || block.type !== 'text' || typeof block.text !== 'string') {
      throw new DshAdapterError(
        DshErrorCode.BAD_RESPONSE,
        `sampling/createMessage answered with ${isJsonObject(block) ? String(block.type) : 'a malformed'} content; only text is supported`,
      );
    }
    parts.push(block.text);
  }
  return { text: parts.join('\n'), model: parsed.data.model, stopReason: parsed.data.stopReason };
}

function finishOf(stopReason: string | undefined): FinishReason {
  if (stopReason === 'maxTokens') return { kind: 'max-tokens' };
  if (stopReason === 'toolUse') return { kind: 'tool-calls' };
  return { kind: 'stop' };
}

export interface LlmService {
  stream(options: GenerateOptions): AsyncIterable<StreamChunk>;
}

export function createLlmService(link: HostLink, log: (message: string) => void): LlmService {
  return {
    stream(options: GenerateOptions): AsyncIterable<StreamChunk> {
      // Validate and bind to the calling tools/call now, not at first iteration.
      const scope = link.requireCall('llm.stream', 'sampling', DshErrorCode.NO_SAMPLING);
      const params = buildSamplingParams(options);
      if (options.provider !== undefined || options.model !== undefined) {
        log(
          `llm.stream: provider/model preferences are ignored; CLAT samples with the active session model`,
        );
      }
      const signal = options.signal;
      return {
        async *[Symbol.asyncIterator]() {
          if (signal?.aborted === true || scope.signal.aborted) {
            throw new DshAdapterError(DshErrorCode.ABORTED, 'llm.stream was cancelled');
          }
          const result = await link.request(scope, 'sampling/createMessage', params, signal);
          const answer = parseSamplingResult(result);
          yield { type: 'block-start', index: 0, blockType: 'text' };
          if (answer.text !== '') yield { type: 'text-delta', index: 0, text: answer.text };
          yield { type: 'block-end', index: 0, block: { type: 'text', text: answer.text } };
          yield { type: 'finish', reason: finishOf(answer.stopReason) };
        },
      };
    },
  };
}

/**
 * MCP `sampling/createMessage` params and results ⇄ the contract's SamplingRequest/Outcome.
 * The MCP client core calls these; the bridge applies the gates.
 * @module
 */
import {
  isJsonObject,
  KernelError,
  KernelErrorCode,
  type SamplingOutcome,
  type SamplingRequest,
} from '@clat/kernel';

export interface McpSamplingTranslation {
  request: SamplingRequest;
  /** Params CLAT read but deliberately does not honour (model preferences, includeContext…). */
  ignored: string[];
}

/** The `sampling/createMessage` result CLAT sends back. */
export interface McpCreateMessageResult {
  role: 'assistant';
  content: { type: 'text'; text: string };
  model: string;
  stopReason: string;
  [key: string]: unknown;
}

const IGNORED = ['modelPreferences', 'includeContext', 'stopSequences', 'metadata'] as const;

function invalid(message: string): KernelError {
  return new KernelError(KernelErrorCode.HOST_INVALID_REQUEST, message);
}

function contentText(content: unknown, index: number): string {
  const blocks = Array.isArray(content) ? content : [content];
  if (blocks.length === 0) throw invalid(`sampling message ${index + 1} has no content`);
  return blocks
    .map((block: unknown) => {
      if (!isJsonObject(block))
        throw invalid(`sampling message ${index + 1} has a malformed content block`);
      if (block.type !== 'text') {
        throw invalid(
          `sampling message ${index + 1} has ${JSON.stringify(block.type)} content; CLAT forwards text content only`,
        );
      }
      if (typeof block.text !== 'string')
        throw invalid(`sampling message ${index + 1} has a text block without text`);
      return block.text;
    })
    .join('\n');
}

/**
 * Reads MCP sampling params. Text blocks (one or an array, joined by newlines) are the only
 * content accepted; `tools`/`toolChoice` are refused because CLAT never declares `sampling.tools`.
 * Server model preferences, `includeContext`, `stopSequences` and `metadata` are ignored: the
 * active session model answers and no conversation is attached. The bridge enforces the limits.
 */
export function samplingRequestFromMcp(params: unknown): McpSamplingTranslation {
  if (!isJsonObject(params)) throw invalid('sampling/createMessage params must be an object');
  if (params.tools !== undefined || params.toolChoice !== undefined) {
    throw invalid(
      'sampling with tools is not supported; CLAT does not declare the sampling.tools capability',
    );
  }
  const messages = params.messages;
  if (!Array.isArray(messages)) throw invalid('sampling/createMessage needs a messages array');
  const request: SamplingRequest = {
    messages: messages.map((message: unknown, index) => {
      if (!isJsonObject(message)) throw invalid(`sampling message ${index + 1} must be an object`);
      if (message.role !== 'user' && message.role !== 'assistant') {
        throw invalid(
          `sampling message ${index + 1} has role ${JSON.stringify(message.role)}; use user or assistant`,
        );
      }
      return { role: message.role, text: contentText(message.content, index) };
    }),
    maxTokens: params.maxTokens as number,
  };
  if (params.systemPrompt !== undefined) {
    if (typeof params.systemPrompt !== 'string')
      throw invalid('sampling systemPrompt must be a string');
    request.systemPrompt = params.systemPrompt;
  }
  if (params.temperature !== undefined) request.temperature = params.temperature as number;
  const ignored = IGNORED.filter((key) => params[key] !== undefined);
  return { request, ignored };
}

/** Builds the MCP result from what the session model answered. */
export function samplingResultToMcp(outcome: SamplingOutcome): McpCreateMessageResult {
  return {
    role: 'assistant',
    content: { type: 'text', text: outcome.text },
    model: outcome.model,
    stopReason: outcome.stopReason,
  };
}

/**
 * @clat/provider-openai: an OpenAI-compatible chat-completions `ModelProvider` for GLM, DeepSeek,
 * OpenAI and local servers, with tool calls, streaming, timeouts, retries and cancellation.
 * @module
 */

export {
  CHAT_IMAGE_TYPES,
  type ChatContentPart,
  type ChatMessage,
  type ChatToolCall,
} from './chat-message.js';
export {
  type KnownVendor,
  type OpenAiCompatibleConfig,
  OpenAiCompatibleConfigSchema,
  PROVIDER_DEFAULTS,
  type ProviderConfigIssue,
  type ResolvedProviderConfig,
  resolveProviderConfig,
  VENDOR_PRESETS,
} from './config.js';
export { isProviderError, ProviderError, ProviderErrorCode } from './errors.js';
export {
  type ChatRequest,
  type ChatResponse,
  type ChatTool,
  type ChatUsage,
  createOpenAiCompatibleProvider,
  OpenAiCompatibleProvider,
  type OpenAiCompatibleProviderOptions,
  type RetryNotice,
} from './openai-compatible-provider.js';
export { backoffDelay, isRetryableStatus, parseRetryAfter } from './retry-policy.js';
export { SseDecoder } from './sse-decoder.js';

/**
 * An OpenAI-compatible chat-completions client that is also the kernel's `ModelProvider` port.
 * `chat()` carries tool definitions and tool calls for the agent loop; `complete()` is the plain
 * text call that extension sampling uses.
 * Over ~500 lines: the class (retry loop, stream reader, error mapping) shares one redactor and
 * deadline per attempt; the chat types and wire mapping at the top can move out (follow-up of
 * issue 13).
 * @module
 */
import {
  cancelledError,
  delay,
  isJsonObject,
  type JsonObject,
  LIMITS,
  type ModelProvider,
  type ModelRequest,
  type ModelResponse,
  Redactor,
  shownUrl,
} from '@clat/kernel';
import { type ChatMessage, type ChatToolCall, toWireMessage } from './chat-message.js';
import { hasUserinfo, PROVIDER_DEFAULTS, type ResolvedProviderConfig } from './config.js';
import { ProviderError, ProviderErrorCode } from './errors.js';
import { backoffDelay, isRetryableStatus, parseRetryAfter } from './retry-policy.js';
import { SseDecoder } from './sse-decoder.js';

export interface ChatTool {
  name: string;
  description: string;
  /** JSON Schema of the arguments object. */
  parameters: JsonObject;
}

export interface ChatRequest {
  messages: ChatMessage[];
  tools?: ChatTool[];
  maxTokens?: number;
  temperature?: number;
  /** Streamed text as it arrives (only when the provider streams). */
  onText?: (delta: string) => void;
}

export interface ChatUsage {
  inputTokens: number;
  outputTokens: number;
}

export interface ChatResponse {
  text: string;
  toolCalls: ChatToolCall[];
  /** The wire `finish_reason` (`stop`, `length`, `tool_calls`, …). */
  finishReason: string;
  model: string;
  usage: ChatUsage | null;
  /** Attempts it took, 1 when the first succeeded. */
  attempts: number;
}

export interface RetryNotice {
  attempt: number;
  delayMs: number;
  error: ProviderError;
}

export interface OpenAiCompatibleProviderOptions {
  baseUrl: string;
  model: string;
  apiKey?: string | undefined;
  vendor?: string | undefined;
  headers?: Record<string, string>;
  /** Deadline of one attempt, including reading a streamed body. */
  timeoutMs?: number | undefined;
  /** Extra attempts after a retryable failure. */
  maxRetries?: number | undefined;
  retryBaseMs?: number;
  retryMaxDelayMs?: number;
  stream?: boolean;
  temperature?: number | undefined;
  maxTokens?: number | undefined;
  /** The model reads images (OpenAI-compatible `image_url` parts); default false. */
  imageInput?: boolean | undefined;
  fetch?: typeof fetch;
  /** Told before each backoff wait; the error text is already redacted. */
  onRetry?: (notice: RetryNotice) => void;
}

interface WireToolCall {
  id?: unknown;
  index?: unknown;
  function?: { name?: unknown; arguments?: unknown };
}

const FINISH_TO_STOP: Record<string, ModelResponse['stopReason']> = {
  stop: 'endTurn',
  length: 'maxTokens',
  tool_calls: 'toolUse',
  function_call: 'toolUse',
  content_filter: 'refusal',
  sensitive: 'refusal',
};

function usageOf(value: unknown): ChatUsage | null {
  if (!isJsonObject(value)) return null;
  const input = value.prompt_tokens;
  const output = value.completion_tokens;
  if (typeof input !== 'number' || typeof output !== 'number') return null;
  return { inputTokens: input, outputTokens: output };
}

function argumentsText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value === undefined || value === null) return '';
  // Some local servers send the arguments as an object rather than JSON text.
  return JSON.stringify(value);
}

/** Accumulates streamed `delta.tool_calls` fragments by index. */
class ToolCallAccumulator {
  readonly #calls = new Map<number, { id: string; name: string; arguments: string }>();

  add(fragments: unknown): void {
    if (!Array.isArray(fragments)) return;
    fragments.forEach((raw: WireToolCall, position) => {
      const index = typeof raw.index === 'number' ? raw.index : position;
      const call = this.#calls.get(index) ?? { id: '', name: '', arguments: '' };
      if (typeof raw.id === 'string' && raw.id !== '') call.id = raw.id;
      const fn = raw.function;
      if (fn !== undefined && fn !== null) {
        if (typeof fn.name === 'string') call.name += fn.name;
        call.arguments += argumentsText(fn.arguments);
      }
      this.#calls.set(index, call);
    });
  }

  list(): ChatToolCall[] {
    return [...this.#calls.entries()]
      .sort(([a], [b]) => a - b)
      .map(([index, call]) => ({
        id: call.id === '' ? `call_${index}` : call.id,
        name: call.name,
        arguments: call.arguments,
      }));
  }
}

export class OpenAiCompatibleProvider implements ModelProvider {
  readonly name: string;
  readonly model: string;
  readonly vendor: string | undefined;
  readonly baseUrl: string;
  /** True when the configured model reads image parts; the agent loop sends tool images then. */
  readonly acceptsImages: boolean;
  readonly #apiKey: string | undefined;
  readonly #headers: Record<string, string>;
  readonly #timeoutMs: number;
  readonly #maxRetries: number;
  readonly #retryBaseMs: number;
  readonly #retryMaxDelayMs: number;
  readonly #stream: boolean;
  readonly #temperature: number | undefined;
  readonly #maxTokens: number;
  readonly #fetch: typeof fetch;
  readonly #onRetry: ((notice: RetryNotice) => void) | undefined;
  readonly #redactor = new Redactor();

  constructor(options: OpenAiCompatibleProviderOptions) {
    // Neither error quotes the URL: it could hold a key.
    if (!/^https?:\/\//i.test(options.baseUrl)) {
      throw new ProviderError(
        ProviderErrorCode.PROVIDER_CONFIG_INVALID,
        'baseUrl must be an http or https URL such as https://api.openai.com/v1',
      );
    }
    if (hasUserinfo(options.baseUrl)) {
      throw new ProviderError(
        ProviderErrorCode.PROVIDER_CONFIG_INVALID,
        `baseUrl ${shownUrl(options.baseUrl)} must not carry credentials (user:password@); pass the key as apiKey`,
      );
    }
    if (options.model.trim() === '') {
      throw new ProviderError(ProviderErrorCode.PROVIDER_CONFIG_INVALID, 'model must not be empty');
    }
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.model = options.model;
    this.vendor = options.vendor;
    this.acceptsImages = options.imageInput === true;
    this.name = `openai-compatible${options.vendor === undefined ? '' : ` (${options.vendor})`}`;
    this.#apiKey = options.apiKey;
    this.#headers = options.headers ?? {};
    this.#timeoutMs = options.timeoutMs ?? LIMITS.samplingProviderMs;
    this.#maxRetries = options.maxRetries ?? PROVIDER_DEFAULTS.maxRetries;
    this.#retryBaseMs = options.retryBaseMs ?? PROVIDER_DEFAULTS.retryBaseMs;
    this.#retryMaxDelayMs = options.retryMaxDelayMs ?? PROVIDER_DEFAULTS.retryMaxDelayMs;
    this.#stream = options.stream ?? false;
    this.#temperature = options.temperature;
    this.#maxTokens = options.maxTokens ?? PROVIDER_DEFAULTS.maxTokens;
    this.#fetch = options.fetch ?? globalThis.fetch.bind(globalThis);
    this.#onRetry = options.onRetry;
    this.#redactor.add(options.apiKey);
    this.#redactor.addHeaders(options.headers);
  }

  /** Redacts the configured key and header values (plus key shapes) from `text`. */
  redact(text: string): string {
    return this.#redactor.redact(text);
  }

  /** The kernel port: a plain text completion (extension sampling), no tools. */
  async complete(request: ModelRequest, signal: AbortSignal): Promise<ModelResponse> {
    const messages: ChatMessage[] = [];
    if (request.system !== undefined && request.system !== '') {
      messages.push({ role: 'system', content: request.system });
    }
    for (const message of request.messages)
      messages.push({ role: message.role, content: message.text });
    const response = await this.chat(
      {
        messages,
        maxTokens: request.maxTokens,
        ...(request.temperature === undefined ? {} : { temperature: request.temperature }),
      },
      signal,
    );
    return {
      text: response.text,
      model: response.model,
      // The server's word: an own entry only (a `"constructor"` would read Object's).
      stopReason: Object.hasOwn(FINISH_TO_STOP, response.finishReason)
        ? (FINISH_TO_STOP[response.finishReason] ?? response.finishReason)
        : response.finishReason,
      usage: response.usage,
    };
  }

  /** One chat-completions call with retries; throws ProviderError, or CANCELLED on `signal`. */
  async chat(request: ChatRequest, signal: AbortSignal): Promise<ChatResponse> {
    const body = this.#body(request);
    for (let attempt = 0; ; attempt++) {
      if (signal.aborted) throw cancelledError(signal, 'model request');
      const emitted = { any: false };
      try {
        const response = await this.#attempt(body, request, signal, emitted);
        return { ...response, attempts: attempt + 1 };
      } catch (error) {
        if (!(error instanceof ProviderError)) throw error;
        // Streamed text already shown cannot be taken back, so a partial stream is final.
        if (!error.retryable || emitted.any || attempt >= this.#maxRetries) throw error;
        const hinted = error.retryAfterMs;
        if (hinted !== undefined && hinted > this.#retryMaxDelayMs) throw error;
        const delayMs = hinted ?? backoffDelay(attempt, this.#retryBaseMs, this.#retryMaxDelayMs);
        this.#onRetry?.({ attempt: attempt + 1, delayMs, error });
        await delay(delayMs, signal);
      }
    }
  }

  #body(request: ChatRequest): string {
    const tools = request.tools ?? [];
    const temperature = request.temperature ?? this.#temperature;
    return JSON.stringify({
      model: this.model,
      messages: request.messages.map(toWireMessage),
      ...(tools.length === 0
        ? {}
        : {
            tools: tools.map((tool) => ({
              type: 'function',
              function: {
                name: tool.name,
                description: tool.description,
                parameters: tool.parameters,
              },
            })),
          }),
      max_tokens: request.maxTokens ?? this.#maxTokens,
      ...(temperature === undefined ? {} : { temperature }),
      ...(this.#stream ? { stream: true, stream_options: { include_usage: true } } : {}),
    });
  }

  async #attempt(
    body: string,
    request: ChatRequest,
    signal: AbortSignal,
    emitted: { any: boolean },
  ): Promise<Omit<ChatResponse, 'attempts'>> {
    const controller = new AbortController();
    const timedOut = { value: false };
    const timer = setTimeout(() => {
      timedOut.value = true;
      controller.abort();
    }, this.#timeoutMs);
    const onAbort = () => controller.abort();
    signal.addEventListener('abort', onAbort, { once: true });
    const fail = (error: unknown): never => {
      if (error instanceof ProviderError) throw error;
      if (signal.aborted) throw cancelledError(signal, 'model request');
      if (timedOut.value) {
        throw new ProviderError(
          ProviderErrorCode.PROVIDER_TIMEOUT,
          `${this.name} did not answer within ${this.#timeoutMs} ms`,
          { retryable: true },
        );
      }
      throw new ProviderError(
        ProviderErrorCode.PROVIDER_NETWORK_ERROR,
        `cannot reach ${shownUrl(this.#endpoint())}: ${this.redact(causeText(error))}`,
        { retryable: true, cause: error },
      );
    };
    try {
      let response: Response;
      try {
        response = await this.#fetch(this.#endpoint(), {
          method: 'POST',
          headers: this.#requestHeaders(),
          body,
          signal: controller.signal,
        });
      } catch (error) {
        return fail(error);
      }
      if (!response.ok) throw await this.#httpError(response);
      const type = response.headers.get('content-type') ?? '';
      try {
        if (type.includes('text/event-stream')) {
          return await this.#readStream(response, request, emitted);
        }
        return this.#readJson(await response.text());
      } catch (error) {
        return fail(error);
      }
    } finally {
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
    }
  }

  #endpoint(): string {
    return `${this.baseUrl}/chat/completions`;
  }

  #requestHeaders(): Record<string, string> {
    return {
      'content-type': 'application/json',
      accept: this.#stream ? 'text/event-stream, application/json' : 'application/json',
      ...(this.#apiKey === undefined ? {} : { authorization: `Bearer ${this.#apiKey}` }),
      ...this.#headers,
    };
  }

  async #httpError(response: Response): Promise<ProviderError> {
    let text = '';
    try {
      text = (await response.text()).slice(0, PROVIDER_DEFAULTS.errorBodyChars);
    } catch {
      // The status alone still explains the failure.
    }
    let detail = text.trim();
    try {
      const parsed: unknown = JSON.parse(text);
      if (isJsonObject(parsed)) {
        const error = parsed.error;
        if (isJsonObject(error) && typeof error.message === 'string') detail = error.message;
        else if (typeof parsed.message === 'string') detail = parsed.message;
      }
    } catch {
      // Not JSON: keep the raw (bounded) text.
    }
    detail = this.redact(detail);
    const status = response.status;
    const suffix = detail === '' ? '' : `: ${detail}`;
    if (status === 401 || status === 403) {
      return new ProviderError(
        ProviderErrorCode.PROVIDER_AUTH_FAILED,
        `${this.name} rejected the credentials (HTTP ${status})${suffix}; check the API key`,
        { status },
      );
    }
    return new ProviderError(
      status === 429
        ? ProviderErrorCode.PROVIDER_RATE_LIMITED
        : ProviderErrorCode.PROVIDER_HTTP_ERROR,
      `${this.name} answered HTTP ${status}${suffix}`,
      {
        status,
        retryable: isRetryableStatus(status),
        retryAfterMs: parseRetryAfter(response.headers.get('retry-after')),
      },
    );
  }

  #readJson(text: string): Omit<ChatResponse, 'attempts'> {
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      throw this.#badResponse('the body is not JSON');
    }
    if (!isJsonObject(parsed)) throw this.#badResponse('the body is not a JSON object');
    const choice = Array.isArray(parsed.choices) ? parsed.choices[0] : undefined;
    if (!isJsonObject(choice) || !isJsonObject(choice.message)) {
      throw this.#badResponse('it has no choices[0].message');
    }
    const message = choice.message;
    const calls = new ToolCallAccumulator();
    calls.add(message.tool_calls);
    return {
      text: typeof message.content === 'string' ? message.content : '',
      toolCalls: calls.list(),
      finishReason: typeof choice.finish_reason === 'string' ? choice.finish_reason : 'stop',
      model: typeof parsed.model === 'string' ? parsed.model : this.model,
      usage: usageOf(parsed.usage),
    };
  }

  async #readStream(
    response: Response,
    request: ChatRequest,
    emitted: { any: boolean },
  ): Promise<Omit<ChatResponse, 'attempts'>> {
    if (response.body === null) throw this.#badResponse('the event stream has no body');
    const decoder = new SseDecoder();
    const calls = new ToolCallAccumulator();
    let text = '';
    let finishReason = '';
    let model = this.model;
    let usage: ChatUsage | null = null;
    let done = false;
    const handle = (payload: string) => {
      if (payload.trim() === '[DONE]') {
        done = true;
        return;
      }
      let chunk: unknown;
      try {
        chunk = JSON.parse(payload);
      } catch {
        throw this.#badResponse('a stream event is not JSON');
      }
      if (!isJsonObject(chunk)) return;
      if (isJsonObject(chunk.error)) {
        const message =
          typeof chunk.error.message === 'string' ? chunk.error.message : 'unknown error';
        throw new ProviderError(
          ProviderErrorCode.PROVIDER_HTTP_ERROR,
          `${this.name} reported an error mid-stream: ${this.redact(message)}`,
        );
      }
      if (typeof chunk.model === 'string') model = chunk.model;
      usage = usageOf(chunk.usage) ?? usage;
      const choice = Array.isArray(chunk.choices) ? chunk.choices[0] : undefined;
      if (!isJsonObject(choice)) return;
      if (typeof choice.finish_reason === 'string') finishReason = choice.finish_reason;
      const delta = choice.delta;
      if (!isJsonObject(delta)) return;
      if (typeof delta.content === 'string' && delta.content !== '') {
        text += delta.content;
        emitted.any = true;
        request.onText?.(delta.content);
      }
      calls.add(delta.tool_calls);
    };
    const reader = response.body.getReader();
    try {
      while (!done) {
        const { value, done: ended } = await reader.read();
        if (ended) break;
        for (const payload of decoder.push(value)) {
          handle(payload);
          if (done) break;
        }
      }
      if (!done) for (const payload of decoder.end()) handle(payload);
    } finally {
      reader.cancel().catch(() => {});
    }
    if (finishReason === '' && !done) {
      throw new ProviderError(
        ProviderErrorCode.PROVIDER_BAD_RESPONSE,
        `${this.name} ended the event stream before a finish_reason or [DONE]`,
        { retryable: true },
      );
    }
    return {
      text,
      toolCalls: calls.list(),
      finishReason: finishReason === '' ? 'stop' : finishReason,
      model,
      usage,
    };
  }

  #badResponse(why: string): ProviderError {
    return new ProviderError(
      ProviderErrorCode.PROVIDER_BAD_RESPONSE,
      `${this.name} sent a response CLAT cannot read: ${why}`,
    );
  }
}

function causeText(error: unknown): string {
  if (error instanceof Error) {
    const cause = (error as Error & { cause?: unknown }).cause;
    if (cause instanceof Error && cause.message !== '')
      return `${error.message} (${cause.message})`;
    return error.message;
  }
  return String(error);
}

/** Builds a provider from a resolved `config.json` provider section. */
export function createOpenAiCompatibleProvider(
  config: ResolvedProviderConfig,
  extra: Pick<
    OpenAiCompatibleProviderOptions,
    'fetch' | 'onRetry' | 'retryBaseMs' | 'retryMaxDelayMs'
  > = {},
): OpenAiCompatibleProvider {
  return new OpenAiCompatibleProvider({
    baseUrl: config.baseUrl,
    model: config.model,
    apiKey: config.apiKey,
    vendor: config.vendor,
    headers: config.headers,
    timeoutMs: config.timeoutMs,
    maxRetries: config.maxRetries,
    stream: config.stream,
    temperature: config.temperature,
    maxTokens: config.maxTokens,
    imageInput: config.imageInput,
    ...extra,
  });
}

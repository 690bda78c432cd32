/**
 * The payload and run-budget gates of extension sampling, shared by MCP, WASM and DSH callers.
 * @module
 */
import type { SamplingRequest } from '../contract/plugin-contract.js';
import { KernelError, KernelErrorCode } from '../errors.js';
import { isJsonObject } from '../json.js';
import { LIMITS } from '../limits.js';

/** Unicode characters (code points) of a string; what the outbound-text limit counts. */
export function countChars(text: string): number {
  let chars = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code >= 0xd800 && code <= 0xdbff && i + 1 < text.length) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) i++;
    }
    chars++;
  }
  return chars;
}

/** A request that passed the payload gate, with what the later gates need. */
export interface CheckedSamplingPayload {
  request: SamplingRequest;
  /** Characters across the system prompt and every message. */
  chars: number;
  /** Output tokens actually asked of the model: the request's value, clamped to the limit. */
  maxTokens: number;
  /** The value the plugin asked for, kept for the approval dialog and the audit trail. */
  requestedMaxTokens: number;
}

function invalid(message: string): KernelError {
  return new KernelError(KernelErrorCode.HOST_INVALID_REQUEST, message);
}

/**
 * Gate 1 (payload): at most `LIMITS.samplingMessages` text messages and
 * `LIMITS.samplingOutboundChars` characters across system prompt and messages.
 *
 * `maxTokens` over `LIMITS.samplingMaxOutputTokens` is clamped, not rejected: the model is never
 * asked for more than the limit, the approval dialog shows both numbers, and servers written for
 * larger windows keep working (the original CLAT did the same). A non-positive or non-integer
 * `maxTokens` is invalid.
 */
export function checkSamplingPayload(request: unknown): CheckedSamplingPayload {
  if (!isJsonObject(request)) throw invalid('sampling request must be an object');
  const { messages, systemPrompt, maxTokens, temperature } = request as Record<string, unknown>;
  if (!Array.isArray(messages) || messages.length === 0) {
    throw invalid('sampling request needs at least one message');
  }
  if (messages.length > LIMITS.samplingMessages) {
    throw new KernelError(
      KernelErrorCode.SAMPLING_PAYLOAD_TOO_LARGE,
      `sampling request has ${messages.length} messages, over the limit of ${LIMITS.samplingMessages}`,
      { data: { messages: messages.length, limit: LIMITS.samplingMessages } },
    );
  }
  if (systemPrompt !== undefined && typeof systemPrompt !== 'string') {
    throw invalid('sampling systemPrompt must be a string');
  }
  if (typeof maxTokens !== 'number' || !Number.isSafeInteger(maxTokens) || maxTokens < 1) {
    throw invalid(
      `sampling maxTokens must be a positive integer, got ${JSON.stringify(maxTokens)}`,
    );
  }
  if (
    temperature !== undefined &&
    (typeof temperature !== 'number' || !Number.isFinite(temperature))
  ) {
    throw invalid(
      `sampling temperature must be a finite number, got ${JSON.stringify(temperature)}`,
    );
  }
  let chars = systemPrompt === undefined ? 0 : countChars(systemPrompt);
  const checked: SamplingRequest['messages'] = [];
  messages.forEach((message: unknown, index) => {
    if (!isJsonObject(message)) throw invalid(`sampling message ${index + 1} must be an object`);
    const { role, text } = message as Record<string, unknown>;
    if (role !== 'user' && role !== 'assistant') {
      throw invalid(
        `sampling message ${index + 1} has role ${JSON.stringify(role)}; use user or assistant`,
      );
    }
    if (typeof text !== 'string') {
      throw invalid(
        `sampling message ${index + 1} must carry text; only text content is supported`,
      );
    }
    chars += countChars(text);
    checked.push({ role, text });
  });
  if (chars > LIMITS.samplingOutboundChars) {
    throw new KernelError(
      KernelErrorCode.SAMPLING_PAYLOAD_TOO_LARGE,
      `sampling request has ${chars} characters across system prompt and messages, over the limit of ${LIMITS.samplingOutboundChars}`,
      { data: { chars, limit: LIMITS.samplingOutboundChars } },
    );
  }
  const effective = Math.min(maxTokens, LIMITS.samplingMaxOutputTokens);
  return {
    request: {
      messages: checked,
      maxTokens: effective,
      ...(systemPrompt === undefined ? {} : { systemPrompt }),
      ...(temperature === undefined ? {} : { temperature }),
    },
    chars,
    maxTokens: effective,
    requestedMaxTokens: maxTokens,
  };
}

/** Sampling spend of one run. `budgetTokens` is what the approximate token guard counts. */
export interface SamplingUsage {
  /** Requests that passed the payload gate and took a budget slot (denied ones included). */
  requests: number;
  /** Requests the model answered. */
  completed: number;
  /** Real usage reported by the model. */
  inputTokens: number;
  outputTokens: number;
  /** Reported usage plus reservations still open or never reconciled. */
  budgetTokens: number;
}

/** One open reservation; settle or release it exactly once. */
export interface SamplingReservation {
  readonly tokens: number;
}

/**
 * Gate 2 (run budget): a request slot and an approximate token reservation of
 * ⌈chars/4⌉ + maxTokens, taken before the approval dialog and the provider call.
 */
export class SamplingBudget {
  #requests = 0;
  #completed = 0;
  #inputTokens = 0;
  #outputTokens = 0;
  #budgetTokens = 0;
  readonly #open = new Set<SamplingReservation>();

  /** Throws SAMPLING_BUDGET_EXHAUSTED when the slot or the tokens would cross a run limit. */
  reserve(chars: number, maxTokens: number): SamplingReservation {
    if (this.#requests + 1 > LIMITS.samplingRequestsPerRun) {
      throw new KernelError(
        KernelErrorCode.SAMPLING_BUDGET_EXHAUSTED,
        `sampling budget exhausted: this run already made ${this.#requests} of ${LIMITS.samplingRequestsPerRun} extension sampling requests`,
        { data: { requests: this.#requests, limit: LIMITS.samplingRequestsPerRun } },
      );
    }
    const tokens = Math.ceil(chars / 4) + maxTokens;
    if (this.#budgetTokens + tokens > LIMITS.samplingTokensPerRun) {
      throw new KernelError(
        KernelErrorCode.SAMPLING_BUDGET_EXHAUSTED,
        `sampling budget exhausted: reserving ${tokens} tokens would pass the run guard of ${LIMITS.samplingTokensPerRun} (${this.#budgetTokens} already spent or reserved)`,
        {
          data: { reserve: tokens, spent: this.#budgetTokens, limit: LIMITS.samplingTokensPerRun },
        },
      );
    }
    this.#requests++;
    this.#budgetTokens += tokens;
    const reservation: SamplingReservation = { tokens };
    this.#open.add(reservation);
    return reservation;
  }

  /** The request never reached the model (denied, cancelled before the call): free its tokens. */
  release(reservation: SamplingReservation): void {
    if (!this.#open.delete(reservation)) return;
    this.#budgetTokens -= reservation.tokens;
  }

  /**
   * The model answered: replace the reservation with real usage. Without reported usage the
   * reservation stays counted, so the guard never under-counts.
   */
  settle(
    reservation: SamplingReservation,
    usage: { inputTokens: number; outputTokens: number } | null,
  ): void {
    if (!this.#open.delete(reservation)) return;
    this.#completed++;
    if (usage === null) return;
    const input = nonNegative(usage.inputTokens);
    const output = nonNegative(usage.outputTokens);
    this.#inputTokens += input;
    this.#outputTokens += output;
    this.#budgetTokens += input + output - reservation.tokens;
  }

  /** The call reached the model but failed: its cost is unknown, so the reservation stays. */
  abandon(reservation: SamplingReservation): void {
    this.#open.delete(reservation);
  }

  usage(): SamplingUsage {
    return {
      requests: this.#requests,
      completed: this.#completed,
      inputTokens: this.#inputTokens,
      outputTokens: this.#outputTokens,
      budgetTokens: this.#budgetTokens,
    };
  }
}

function nonNegative(value: number): number {
  return Number.isFinite(value) && value > 0 ? Math.floor(value) : 0;
}

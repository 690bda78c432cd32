import { describe, expect, it } from 'vitest';
import { KernelErrorCode } from '../errors.js';
import { LIMITS } from '../limits.js';
import { checkSamplingPayload, countChars, SamplingBudget } from './sampling-gates.js';

const user = (text: string) => ({ role: 'user' as const, text });

function codeOf(fn: () => unknown): string | undefined {
  try {
    fn();
    return undefined;
  } catch (error) {
    return (error as { code?: string }).code;
  }
}

describe('checkSamplingPayload', () => {
  it('accepts exactly the message limit and rejects one more', () => {
    const at = Array.from({ length: LIMITS.samplingMessages }, () => user('x'));
    expect(checkSamplingPayload({ messages: at, maxTokens: 10 }).request.messages).toHaveLength(
      LIMITS.samplingMessages,
    );
    expect(
      codeOf(() => checkSamplingPayload({ messages: [...at, user('x')], maxTokens: 10 })),
    ).toBe(KernelErrorCode.SAMPLING_PAYLOAD_TOO_LARGE);
  });

  it('counts characters across system prompt and messages, at and over the limit', () => {
    const half = LIMITS.samplingOutboundChars / 2;
    const at = { systemPrompt: 'a'.repeat(half), messages: [user('b'.repeat(half))], maxTokens: 1 };
    expect(checkSamplingPayload(at).chars).toBe(LIMITS.samplingOutboundChars);
    const over = { ...at, messages: [user('b'.repeat(half)), user('c')] };
    expect(codeOf(() => checkSamplingPayload(over))).toBe(
      KernelErrorCode.SAMPLING_PAYLOAD_TOO_LARGE,
    );
  });

  it('counts an astral character once', () => {
    expect(countChars('a😀b')).toBe(3);
    const emoji = '😀'.repeat(LIMITS.samplingOutboundChars);
    expect(checkSamplingPayload({ messages: [user(emoji)], maxTokens: 1 }).chars).toBe(
      LIMITS.samplingOutboundChars,
    );
  });

  it('keeps maxTokens at the limit and clamps anything above it', () => {
    const at = checkSamplingPayload({
      messages: [user('x')],
      maxTokens: LIMITS.samplingMaxOutputTokens,
    });
    expect(at.maxTokens).toBe(LIMITS.samplingMaxOutputTokens);
    expect(at.requestedMaxTokens).toBe(LIMITS.samplingMaxOutputTokens);
    const over = checkSamplingPayload({
      messages: [user('x')],
      maxTokens: LIMITS.samplingMaxOutputTokens + 1,
    });
    expect(over.maxTokens).toBe(LIMITS.samplingMaxOutputTokens);
    expect(over.request.maxTokens).toBe(LIMITS.samplingMaxOutputTokens);
    expect(over.requestedMaxTokens).toBe(LIMITS.samplingMaxOutputTokens + 1);
  });

  it('rejects malformed requests with HOST_INVALID_REQUEST', () => {
    for (const bad of [
      null,
      { messages: [], maxTokens: 1 },
      { messages: [user('x')], maxTokens: 0 },
      { messages: [user('x')], maxTokens: 1.5 },
      { messages: [user('x')] },
      { messages: [{ role: 'system', text: 'x' }], maxTokens: 1 },
      { messages: [{ role: 'user', content: { type: 'image' } }], maxTokens: 1 },
      { messages: [user('x')], maxTokens: 1, systemPrompt: 3 },
      { messages: [user('x')], maxTokens: 1, temperature: Number.NaN },
    ]) {
      expect(codeOf(() => checkSamplingPayload(bad))).toBe(KernelErrorCode.HOST_INVALID_REQUEST);
    }
  });
});

describe('SamplingBudget', () => {
  it('allows exactly the request limit per run', () => {
    const budget = new SamplingBudget();
    for (let i = 0; i < LIMITS.samplingRequestsPerRun; i++)
      budget.settle(budget.reserve(4, 1), null);
    expect(budget.usage().requests).toBe(LIMITS.samplingRequestsPerRun);
    expect(codeOf(() => budget.reserve(4, 1))).toBe(KernelErrorCode.SAMPLING_BUDGET_EXHAUSTED);
  });

  it('reserves ceil(chars/4) + maxTokens and refuses past the token guard', () => {
    const budget = new SamplingBudget();
    const first = budget.reserve(5, 100);
    expect(first.tokens).toBe(2 + 100);
    budget.release(first);
    expect(budget.usage().budgetTokens).toBe(0);
    // Fill to exactly the guard, then one more token is refused.
    const big = budget.reserve(0, LIMITS.samplingTokensPerRun - 1);
    expect(budget.usage().budgetTokens).toBe(LIMITS.samplingTokensPerRun - 1);
    const last = budget.reserve(4, 0);
    expect(budget.usage().budgetTokens).toBe(LIMITS.samplingTokensPerRun);
    expect(codeOf(() => budget.reserve(1, 0))).toBe(KernelErrorCode.SAMPLING_BUDGET_EXHAUSTED);
    budget.release(last);
    budget.release(big);
  });

  it('reconciles a reservation with real usage, or keeps it when none is reported', () => {
    const budget = new SamplingBudget();
    const reported = budget.reserve(400, 1000);
    budget.settle(reported, { inputTokens: 120, outputTokens: 30 });
    expect(budget.usage()).toEqual({
      requests: 1,
      completed: 1,
      inputTokens: 120,
      outputTokens: 30,
      budgetTokens: 150,
    });
    const silent = budget.reserve(400, 1000);
    budget.settle(silent, null);
    expect(budget.usage().budgetTokens).toBe(150 + 1100);
    const failed = budget.reserve(0, 10);
    budget.abandon(failed);
    budget.release(failed);
    expect(budget.usage().budgetTokens).toBe(150 + 1100 + 10);
    expect(budget.usage().requests).toBe(3);
  });

  it('lets real usage free budget that a large reservation held', () => {
    const budget = new SamplingBudget();
    const big = budget.reserve(0, LIMITS.samplingTokensPerRun);
    expect(codeOf(() => budget.reserve(0, 1))).toBe(KernelErrorCode.SAMPLING_BUDGET_EXHAUSTED);
    budget.settle(big, { inputTokens: 1, outputTokens: 1 });
    expect(() => budget.reserve(0, 1)).not.toThrow();
  });
});

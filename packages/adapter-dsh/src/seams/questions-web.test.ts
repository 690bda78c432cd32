import { describe, expect, it } from 'vitest';
import { buildElicitation, fieldNames, parseAnswers } from './questions.js';
import {
  mergeSearchResults,
  SEARCH_PROVIDER_ENV,
  WEB_SEARCH_MAX_RESULTS,
  WebService,
} from './web.js';

describe('userQuestions → elicitation form', () => {
  it('sanitizes and dedupes field names', () => {
    expect(fieldNames(['a-b', 'a.b', '__', 'ok', 'a_b'])).toEqual([
      'a_b',
      'a_b_2',
      'q',
      'ok',
      'a_b_3',
    ]);
  });

  it('builds single (enum), multi and free fields, all required, message = first question', () => {
    const { params } = buildElicitation({
      questions: [
        {
          id: 'pick',
          question: 'Pick one',
          options: [{ label: 'x', description: 'the x' }, { label: 'y' }],
        },
        {
          id: 'many',
          question: 'Pick several',
          options: [{ label: 'a' }, { label: 'b' }],
          multiSelect: true,
        },
        { id: 'free', question: 'Say something', detail: 'anything' },
      ],
    });
    expect(params).toMatchObject({
      mode: 'form',
      message: 'Pick one',
      requestedSchema: {
        type: 'object',
        required: ['pick', 'many', 'free'],
        properties: {
          pick: {
            type: 'string',
            enum: ['x', 'y'],
            oneOf: [
              { const: 'x', title: 'x — the x' },
              { const: 'y', title: 'y' },
            ],
          },
          many: {
            type: 'string',
            description: 'Choose one or more of: a, b (separate with commas)',
          },
          free: { type: 'string', description: 'anything' },
        },
      },
    });
  });

  it('maps answers: labels case-insensitively, multi-select split on , ， ; ；, leftovers → custom', () => {
    const { plan } = buildElicitation({
      questions: [
        { id: 'pick', question: 'Pick one', options: [{ label: 'Yes' }, { label: 'No' }] },
        {
          id: 'many',
          question: 'Several',
          options: [{ label: 'a' }, { label: 'b' }],
          multiSelect: true,
        },
        { id: 'free', question: 'Free' },
      ],
    });
    const answer = parseAnswers(plan, {
      action: 'accept',
      content: { pick: 'yes', many: 'A；b, a, extra；more', free: '' },
    });
    expect(answer.answers).toEqual([
      { id: 'pick', selected: ['Yes'] },
      { id: 'many', selected: ['a', 'b'], custom: 'extra, more' },
      { id: 'free', selected: [] },
    ]);
    expect(() => parseAnswers(plan, { action: 'cancel' })).toThrow(
      expect.objectContaining({ code: 'USER_CANCELLED' }),
    );
  });

  it('rejects what one form cannot carry', () => {
    const options = Array.from({ length: 17 }, (_, i) => ({ label: `o${i}` }));
    expect(() => buildElicitation({ questions: [] })).toThrow(
      expect.objectContaining({ code: 'EMPTY_QUESTIONS' }),
    );
    expect(() => buildElicitation({ questions: [{ id: 'a', question: 'q', options }] })).toThrow(
      expect.objectContaining({ code: 'TOO_MANY_OPTIONS' }),
    );
    const many = Array.from({ length: 17 }, (_, i) => ({ id: `q${i}`, question: 'q' }));
    expect(() => buildElicitation({ questions: many })).toThrow(
      expect.objectContaining({ code: 'TOO_MANY_QUESTIONS' }),
    );
    expect(() =>
      buildElicitation({ questions: [{ id: 'a', question: 'q' }], agent: 'sub' }),
    ).toThrow(expect.objectContaining({ code: 'AGENT_ASK_UNSUPPORTED' }));
  });
});

describe('web providers', () => {
  const provider = (id: string, available = true) => ({
    id,
    available: () => available,
    search: async ({ query }: { query: string }) => ({
      sources: [{ url: `https://${id}.test/${query}` }],
      truncated: false,
    }),
  });

  it('selects the single available provider, or the configured one, and names the problem otherwise', async () => {
    const none = new WebService({}, () => {});
    await expect(none.search({ query: 'x' })).rejects.toMatchObject({
      code: 'WEB_PROVIDER_UNAVAILABLE',
    });
    const two = new WebService({}, () => {});
    two.registerSearchProvider(provider('a'));
    two.registerSearchProvider(provider('b'));
    await expect(two.search({ query: 'x' })).rejects.toMatchObject({
      code: 'WEB_PROVIDER_AMBIGUOUS',
    });
    expect(() => two.registerSearchProvider(provider('a'))).toThrow(
      expect.objectContaining({ code: 'WEB_DUPLICATE_PROVIDER' }),
    );
    const chosen = new WebService({ [SEARCH_PROVIDER_ENV]: 'b' }, () => {});
    chosen.registerSearchProvider(provider('a'));
    chosen.registerSearchProvider(provider('b'));
    expect((await chosen.search({ query: 'x' })).sources[0]?.url).toBe('https://b.test/x');
    const missing = new WebService({ [SEARCH_PROVIDER_ENV]: 'c' }, () => {});
    missing.registerSearchProvider(provider('a'));
    await expect(missing.search({ query: 'x' })).rejects.toMatchObject({
      code: 'WEB_PROVIDER_CONFIGURED_MISSING',
    });
    const down = new WebService({ [SEARCH_PROVIDER_ENV]: 'a' }, () => {});
    down.registerSearchProvider(provider('a', false));
    await expect(down.search({ query: 'x' })).rejects.toMatchObject({
      code: 'WEB_PROVIDER_CONFIGURED_UNAVAILABLE',
    });
  });

  it('merges query results round-robin, first URL wins, at most 8', () => {
    const list = (prefix: string, n: number) => ({
      sources: Array.from({ length: n }, (_, i) => ({ url: `${prefix}${i}` })),
      truncated: false,
    });
    const merged = mergeSearchResults([
      list('a', 6),
      { sources: [{ url: 'a0' }, { url: 'b1' }], truncated: false },
      list('c', 6),
    ]);
    expect(merged.sources.map((source) => source.url)).toEqual([
      'a0',
      'c0',
      'a1',
      'b1',
      'c1',
      'a2',
      'c2',
      'a3',
    ]);
    expect(merged.sources).toHaveLength(WEB_SEARCH_MAX_RESULTS);
    expect(merged.truncated).toBe(true);
  });

  it('serves built-in web_search only while a provider exists', () => {
    const web = new WebService({}, () => {});
    expect(web.builtinTools()).toEqual([]);
    web.registerSearchProvider(provider('a'));
    expect(web.builtinTools().map((tool) => [tool.name, tool.annotations])).toEqual([
      ['web_search', { readOnlyHint: true, openWorldHint: true }],
    ]);
  });
});

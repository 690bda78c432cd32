import { KernelError, KernelErrorCode, LIMITS } from '@clat/kernel';
import { describe, expect, it } from 'vitest';
import { hostErrorToJsonRpc } from './host-error-rpc.js';
import { elicitationFromMcp, elicitationResultToMcp } from './mcp-elicitation.js';
import { samplingRequestFromMcp, samplingResultToMcp } from './mcp-sampling.js';
import { JsonRpcErrorCode } from './transport.js';

function failure(fn: () => unknown): { code?: string; message: string } {
  try {
    fn();
  } catch (error) {
    return error as { code?: string; message: string };
  }
  throw new Error('expected a failure');
}

const form = (properties: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  message: 'Tell me',
  requestedSchema: { type: 'object', properties, ...extra },
});

describe('samplingRequestFromMcp', () => {
  it('reads text blocks, joins arrays and reports ignored preferences', () => {
    const { request, ignored } = samplingRequestFromMcp({
      messages: [
        { role: 'user', content: { type: 'text', text: 'hello' } },
        {
          role: 'assistant',
          content: [
            { type: 'text', text: 'a' },
            { type: 'text', text: 'b' },
          ],
        },
      ],
      systemPrompt: 'be brief',
      maxTokens: 100,
      temperature: 0.7,
      modelPreferences: { hints: [{ name: 'gpt-9' }] },
      includeContext: 'allServers',
      stopSequences: ['END'],
    });
    expect(request).toEqual({
      messages: [
        { role: 'user', text: 'hello' },
        { role: 'assistant', text: 'a\nb' },
      ],
      systemPrompt: 'be brief',
      maxTokens: 100,
      temperature: 0.7,
    });
    expect(ignored).toEqual(['modelPreferences', 'includeContext', 'stopSequences']);
  });

  it('refuses non-text content, tools and bad roles', () => {
    const image = failure(() =>
      samplingRequestFromMcp({
        messages: [
          { role: 'user', content: { type: 'image', data: 'AAAA', mimeType: 'image/png' } },
        ],
        maxTokens: 1,
      }),
    );
    expect(image.code).toBe(KernelErrorCode.HOST_INVALID_REQUEST);
    expect(image.message).toContain('"image" content');
    expect(
      failure(() =>
        samplingRequestFromMcp({
          messages: [{ role: 'user', content: { type: 'text', text: 'x' } }],
          maxTokens: 1,
          tools: [{ name: 't' }],
        }),
      ).message,
    ).toContain('sampling.tools');
    expect(
      failure(() =>
        samplingRequestFromMcp({
          messages: [{ role: 'system', content: { type: 'text', text: 'x' } }],
          maxTokens: 1,
        }),
      ).code,
    ).toBe(KernelErrorCode.HOST_INVALID_REQUEST);
  });

  it('builds the MCP result', () => {
    expect(samplingResultToMcp({ text: 'hi', model: 'm', stopReason: 'endTurn' })).toEqual({
      role: 'assistant',
      content: { type: 'text', text: 'hi' },
      model: 'm',
      stopReason: 'endTurn',
    });
  });
});

describe('elicitationFromMcp', () => {
  it('translates every supported primitive, enum form and default', () => {
    const translation = elicitationFromMcp(
      form(
        {
          name: { type: 'string', title: 'Name', description: 'full name', minLength: 2 },
          email: { type: 'string', format: 'email' },
          age: { type: 'integer', minimum: 1, maximum: 100, default: 42 },
          score: { type: 'number', default: 3.14 },
          ok: { type: 'boolean', default: true },
          friend: { type: 'string', enum: ['Monica', 'Rachel'], default: 'Rachel' },
          hero: {
            type: 'string',
            oneOf: [
              { const: 'hero-1', title: 'Superman' },
              { const: 'hero-2', title: 'Wonder Woman' },
            ],
            default: 'hero-2',
          },
          pet: {
            type: 'string',
            enum: ['pet-1', 'pet-2'],
            enumNames: ['Cats', 'Dogs'],
            default: 'pet-1',
          },
        },
        { required: ['name', 'hero'] },
      ),
    );
    expect(translation.form.message).toBe('Tell me');
    expect(translation.form.fields).toEqual([
      {
        name: 'name',
        title: 'Name',
        description: 'full name',
        kind: 'text',
        options: [],
        required: true,
      },
      { name: 'email', kind: 'text', options: [], required: false },
      {
        name: 'age',
        kind: 'number',
        options: [],
        required: false,
        default: { tag: 'number', val: 42 },
      },
      {
        name: 'score',
        kind: 'number',
        options: [],
        required: false,
        default: { tag: 'number', val: 3.14 },
      },
      {
        name: 'ok',
        kind: 'boolean',
        options: [],
        required: false,
        default: { tag: 'boolean', val: true },
      },
      {
        name: 'friend',
        kind: 'choice',
        options: ['Monica', 'Rachel'],
        required: false,
        default: { tag: 'text', val: 'Rachel' },
      },
      {
        name: 'hero',
        kind: 'choice',
        options: ['Superman', 'Wonder Woman'],
        required: true,
        default: { tag: 'text', val: 'Wonder Woman' },
      },
      {
        name: 'pet',
        kind: 'choice',
        options: ['Cats', 'Dogs'],
        required: false,
        default: { tag: 'text', val: 'Cats' },
      },
    ]);
    expect(translation.rules).toEqual({
      name: { minLength: 2 },
      email: { format: 'email' },
      age: { integer: true, minimum: 1, maximum: 100 },
    });
    expect(
      translation.toMcpResult({
        tag: 'accepted',
        val: [
          ['name', { tag: 'text', val: 'Ada' }],
          ['age', { tag: 'number', val: 7 }],
          ['ok', { tag: 'boolean', val: false }],
          ['hero', { tag: 'text', val: 'Superman' }],
          ['pet', { tag: 'text', val: 'Dogs' }],
          ['friend', { tag: 'text', val: 'Monica' }],
        ],
      }),
    ).toEqual({
      action: 'accept',
      content: { name: 'Ada', age: 7, ok: false, hero: 'hero-1', pet: 'pet-2', friend: 'Monica' },
    });
    expect(translation.toMcpResult({ tag: 'declined' })).toEqual({ action: 'decline' });
    expect(translation.toMcpResult({ tag: 'cancelled' })).toEqual({ action: 'cancel' });
  });

  it('gives explicit errors for unknown modes, nesting, bad multi-selects and unknown types', () => {
    const mode = failure(() => elicitationFromMcp({ mode: 'video', message: 'go' }));
    expect(mode.code).toBe(KernelErrorCode.ELICITATION_UNSUPPORTED);
    expect(mode.message).toContain('"video"');
    const numbers = failure(() =>
      elicitationFromMcp(form({ n: { type: 'array', items: { type: 'number' } } })),
    );
    expect(numbers.message).toContain('multi-select field "n" has items of type "number"');
    const bare = failure(() => elicitationFromMcp(form({ t: { type: 'array' } })));
    expect(bare.message).toContain('needs an items schema');
    const many = failure(() =>
      elicitationFromMcp(
        form({
          t: {
            type: 'array',
            items: {
              enum: Array.from({ length: LIMITS.elicitationChoices + 1 }, (_, i) => `o${i}`),
            },
          },
        }),
      ),
    );
    expect(many.message).toContain('over the limit');
    expect(
      failure(() => elicitationFromMcp(form({ o: { type: 'object', properties: {} } }))).message,
    ).toContain('nested');
    expect(failure(() => elicitationFromMcp(form({ n: { type: 'null' } }))).message).toContain(
      'unsupported type',
    );
    expect(
      failure(() => elicitationFromMcp(form({ e: { type: 'string', enum: [1, 2] } }))).message,
    ).toContain('non-string enum');
    expect(
      failure(() => elicitationFromMcp({ requestedSchema: { properties: {} } })).message,
    ).toContain('message');
  });

  it('translates multi-selects (enum items and titled anyOf) with bounds and default lists', () => {
    const translation = elicitationFromMcp(
      form(
        {
          tags: {
            type: 'array',
            title: 'Tags',
            minItems: 1,
            maxItems: 2,
            items: { type: 'string', enum: ['alpha', 'beta', 'gamma'] },
            default: ['beta'],
          },
          sizes: {
            type: 'array',
            items: {
              anyOf: [
                { const: 's', title: 'Small' },
                { const: 'l', title: 'Large' },
              ],
            },
            default: ['l', 'nope'],
          },
        },
        { required: ['tags'] },
      ),
    );
    expect(translation.form.fields).toEqual([
      {
        name: 'tags',
        title: 'Tags',
        required: true,
        kind: 'choice',
        options: ['alpha', 'beta', 'gamma'],
        default: { tag: 'text', val: '["beta"]' },
      },
      // A default naming a value outside the choices is dropped, not half-applied.
      { name: 'sizes', required: false, kind: 'choice', options: ['Small', 'Large'] },
    ]);
    expect(translation.rules).toEqual({
      tags: { multiple: { minItems: 1, maxItems: 2 } },
      sizes: { multiple: {} },
    });
    expect(
      translation.toMcpResult({
        tag: 'accepted',
        val: [
          ['tags', { tag: 'text', val: '["alpha","gamma"]' }],
          ['sizes', { tag: 'text', val: '["Small","Large"]' }],
        ],
      }),
    ).toEqual({ action: 'accept', content: { tags: ['alpha', 'gamma'], sizes: ['s', 'l'] } });
  });

  it('accepts exactly the field and choice limits and rejects one more', () => {
    const fields = (n: number) =>
      Object.fromEntries(Array.from({ length: n }, (_, i) => [`f${i}`, { type: 'string' }]));
    expect(elicitationFromMcp(form(fields(LIMITS.elicitationFields))).form.fields).toHaveLength(
      LIMITS.elicitationFields,
    );
    expect(failure(() => elicitationFromMcp(form(fields(LIMITS.elicitationFields + 1)))).code).toBe(
      KernelErrorCode.ELICITATION_UNSUPPORTED,
    );
    const choices = (n: number) => ({
      c: { type: 'string', enum: Array.from({ length: n }, (_, i) => `o${i}`) },
    });
    expect(
      elicitationFromMcp(form(choices(LIMITS.elicitationChoices))).form.fields[0]?.options,
    ).toHaveLength(LIMITS.elicitationChoices);
    expect(
      failure(() => elicitationFromMcp(form(choices(LIMITS.elicitationChoices + 1)))).message,
    ).toContain('over the limit');
  });

  it('disambiguates repeated titles and ignores a default outside the enum', () => {
    const { form: translated } = elicitationFromMcp(
      form({
        c: {
          type: 'string',
          oneOf: [
            { const: 'a', title: 'Same' },
            { const: 'b', title: 'Same' },
          ],
          default: 'zzz',
        },
      }),
    );
    expect(translated.fields[0]?.options).toEqual(['Same (a)', 'Same (b)']);
    expect(translated.fields[0]?.default).toBeUndefined();
  });

  it('maps outcomes without a plan too', () => {
    expect(
      elicitationResultToMcp({ tag: 'accepted', val: [['x', { tag: 'number', val: 1 }]] }),
    ).toEqual({
      action: 'accept',
      content: { x: 1 },
    });
  });
});

describe('hostErrorToJsonRpc', () => {
  it('maps params problems to -32602, host refusals to -32000 and the rest to -32603', () => {
    const rpc = (code: KernelErrorCode) => hostErrorToJsonRpc(new KernelError(code, 'm')).code;
    expect(rpc(KernelErrorCode.SAMPLING_PAYLOAD_TOO_LARGE)).toBe(JsonRpcErrorCode.INVALID_PARAMS);
    expect(rpc(KernelErrorCode.HOST_TOOL_NOT_ALLOWED)).toBe(JsonRpcErrorCode.INVALID_PARAMS);
    expect(rpc(KernelErrorCode.HOST_NO_ACTIVE_RUN)).toBe(JsonRpcErrorCode.SERVER_ERROR);
    expect(rpc(KernelErrorCode.SAMPLING_BUDGET_EXHAUSTED)).toBe(JsonRpcErrorCode.SERVER_ERROR);
    expect(rpc(KernelErrorCode.INTERNAL)).toBe(JsonRpcErrorCode.INTERNAL_ERROR);
    const foreign = hostErrorToJsonRpc(new Error('secret stack detail'));
    expect(foreign.code).toBe(JsonRpcErrorCode.INTERNAL_ERROR);
    expect(foreign.message).not.toContain('secret');
  });
});

import { describe, expect, it } from 'vitest';
import type { ElicitationForm } from '../contract/plugin-contract.js';
import { KernelErrorCode } from '../errors.js';
import { LIMITS } from '../limits.js';
import { ScriptedAsker } from '../testing/fakes.js';
import { askElicitationForm, SKIP_OPTION, validateElicitationForm } from './elicitation-flow.js';

const live = () => new AbortController().signal;

const form: ElicitationForm = {
  message: 'Set up the project',
  fields: [
    {
      name: 'name',
      title: 'Name',
      description: 'project name',
      kind: 'text',
      options: [],
      required: true,
    },
    {
      name: 'size',
      kind: 'number',
      options: [],
      required: true,
      default: { tag: 'number', val: 3 },
    },
    {
      name: 'public',
      kind: 'boolean',
      options: [],
      required: false,
      default: { tag: 'boolean', val: false },
    },
    {
      name: 'lang',
      kind: 'choice',
      options: ['ts', 'rust'],
      required: true,
      default: { tag: 'text', val: 'ts' },
    },
  ],
};

describe('askElicitationForm', () => {
  it('asks fields in order, the form message only on the first, with defaults pre-filled', async () => {
    const asker = new ScriptedAsker('demo', '4', 'yes', 'Rust');
    const outcome = await askElicitationForm(form, asker, live());
    expect(outcome).toEqual({
      tag: 'accepted',
      val: [
        ['name', { tag: 'text', val: 'demo' }],
        ['size', { tag: 'number', val: 4 }],
        ['public', { tag: 'boolean', val: true }],
        ['lang', { tag: 'text', val: 'rust' }],
      ],
    });
    const [first, second, third, fourth] = asker.questions;
    expect(first?.question).toBe(
      'Set up the project\n\n— Name: project name (required; an empty answer declines the form)',
    );
    expect(first?.options).toBeUndefined();
    expect(second?.question).toBe('— size');
    expect(second?.defaultAnswer).toBe('3');
    expect(third?.question).toBe('— public (optional)');
    expect(third?.options?.map((o) => o.label)).toEqual(['yes', 'no', SKIP_OPTION]);
    expect(third?.allowCustom).toBe(false);
    expect(third?.defaultAnswer).toBe('no');
    expect(fourth?.options?.map((o) => o.label)).toEqual(['ts', 'rust']);
    expect(fourth?.defaultAnswer).toBe('ts');
    // Without a source (no caller given) no question claims one.
    expect(asker.questions.every((q) => q.source === undefined)).toBe(true);
  });

  it('names the plugin that asks on every question, the confirmation too', async () => {
    const source = { kind: 'mcp', id: 'docs' };
    const asker = new ScriptedAsker('demo', '4', 'yes', 'Rust');
    await askElicitationForm(form, asker, live(), { source });
    expect(asker.questions).toHaveLength(4);
    expect(asker.questions.map((q) => q.source)).toEqual([source, source, source, source]);
    const confirm = new ScriptedAsker('accept');
    await askElicitationForm({ message: 'Really deploy?', fields: [] }, confirm, live(), {
      source,
    });
    expect(confirm.questions[0]?.source).toEqual(source);
  });

  it('omits a skipped optional field', async () => {
    const outcome = await askElicitationForm(
      form,
      new ScriptedAsker('x', '1', SKIP_OPTION, 'ts'),
      live(),
    );
    expect(outcome.tag === 'accepted' && outcome.val.map(([name]) => name)).toEqual([
      'name',
      'size',
      'lang',
    ]);
  });

  it('pre-fills "(skip)" on an optional field without a default, so Enter skips it', async () => {
    const optional: ElicitationForm = {
      message: 'Sign up',
      fields: [
        { name: 'name', kind: 'text', options: [], required: true },
        { name: 'agree', kind: 'boolean', options: [], required: false },
        { name: 'nick', kind: 'text', options: [], required: false },
      ],
    };
    // A frontend answers Enter with the pre-filled answer.
    const asker = new ScriptedAsker('Ada', SKIP_OPTION, SKIP_OPTION);
    const outcome = await askElicitationForm(optional, asker, live());
    expect(outcome).toEqual({ tag: 'accepted', val: [['name', { tag: 'text', val: 'Ada' }]] });
    expect(asker.questions.map((q) => q.defaultAnswer)).toEqual([
      undefined,
      SKIP_OPTION,
      SKIP_OPTION,
    ]);
  });

  it('re-asks an invalid number up to twice, then fails', async () => {
    const ok = new ScriptedAsker('x', 'many', '1e999', '12', 'no', 'ts');
    const outcome = await askElicitationForm(form, ok, live());
    expect(outcome.tag === 'accepted' && outcome.val[1]).toEqual([
      'size',
      { tag: 'number', val: 12 },
    ]);
    expect(ok.questions[2]?.question).toBe('— size [enter a number]');
    const bad = new ScriptedAsker('x', 'a', 'b', 'c', 'd');
    await expect(askElicitationForm(form, bad, live())).rejects.toMatchObject({
      code: KernelErrorCode.ELICITATION_INVALID_ANSWER,
    });
    expect(bad.questions).toHaveLength(1 + 1 + LIMITS.elicitationNumberRetries);
  });

  it('applies integer and range rules a translator read from its source schema', async () => {
    const translated: ElicitationForm = {
      message: 'm',
      fields: [{ name: 'n', kind: 'number', options: [], required: true }],
    };
    const rules = { n: { integer: true, minimum: 1, maximum: 10 } };
    const asker = new ScriptedAsker('2.5', '11', '10');
    const outcome = await askElicitationForm(translated, asker, live(), { rules });
    expect(outcome).toEqual({ tag: 'accepted', val: [['n', { tag: 'number', val: 10 }]] });
    expect(asker.questions[1]?.question).toContain('[enter a whole number from 1 to 10]');
  });

  it('Esc cancels, a refusal declines, and a refusal after abort counts as cancel', async () => {
    expect(
      await askElicitationForm(form, new ScriptedAsker('x', { kind: 'cancelled' }), live()),
    ).toEqual({
      tag: 'cancelled',
    });
    expect(await askElicitationForm(form, new ScriptedAsker({ kind: 'declined' }), live())).toEqual(
      {
        tag: 'declined',
      },
    );
    const controller = new AbortController();
    const asker = new ScriptedAsker(() => {
      controller.abort('user pressed ctrl-c');
      return { kind: 'declined' };
    });
    await expect(askElicitationForm(form, asker, controller.signal)).rejects.toMatchObject({
      code: KernelErrorCode.CANCELLED,
    });
  });

  it('stops when the checkpoint throws (run ended)', async () => {
    let calls = 0;
    const outcome = askElicitationForm(form, new ScriptedAsker('a', '1', 'yes', 'ts'), live(), {
      checkpoint: () => {
        calls++;
        if (calls === 2) throw new Error('run ended');
      },
    });
    await expect(outcome).rejects.toThrow('run ended');
  });

  it('confirms a form without fields', async () => {
    const empty = { message: 'Really deploy?', fields: [] };
    expect(await askElicitationForm(empty, new ScriptedAsker('accept'), live())).toEqual({
      tag: 'accepted',
      val: [],
    });
    expect(await askElicitationForm(empty, new ScriptedAsker('decline'), live())).toEqual({
      tag: 'declined',
    });
  });
});

describe('validateElicitationForm', () => {
  it('enforces the field and choice limits and choice sanity', () => {
    const fields = (n: number) =>
      Array.from({ length: n }, (_, i) => ({
        name: `f${i}`,
        kind: 'text' as const,
        options: [],
        required: true,
      }));
    expect(() =>
      validateElicitationForm({ message: '', fields: fields(LIMITS.elicitationFields) }),
    ).not.toThrow();
    expect(() =>
      validateElicitationForm({ message: '', fields: fields(LIMITS.elicitationFields + 1) }),
    ).toThrow(/over the limit/);
    const choice = (n: number) => ({
      message: '',
      fields: [
        {
          name: 'c',
          kind: 'choice',
          options: Array.from({ length: n }, (_, i) => `o${i}`),
          required: true,
        },
      ],
    });
    expect(() => validateElicitationForm(choice(LIMITS.elicitationChoices))).not.toThrow();
    expect(() => validateElicitationForm(choice(LIMITS.elicitationChoices + 1))).toThrow(
      /over the limit/,
    );
    expect(() => validateElicitationForm(choice(0))).toThrow(/no options/);
    expect(() =>
      validateElicitationForm({
        message: 'x'.repeat(LIMITS.elicitationMessageChars + 1),
        fields: [],
      }),
    ).toThrow(/message/);
    expect(() =>
      validateElicitationForm({
        message: '',
        fields: [
          { name: 'a', kind: 'text', options: [], required: true },
          { name: 'a', kind: 'text', options: [], required: true },
        ],
      }),
    ).toThrow(/twice/);
  });
});

describe('multi-select choice fields', () => {
  const multi: ElicitationForm = {
    message: 'Tags',
    fields: [
      {
        name: 'tags',
        kind: 'choice',
        options: ['alpha', 'beta, with comma', 'gamma'],
        required: true,
        default: { tag: 'text', val: '["beta, with comma"]' },
      },
      { name: 'extra', kind: 'choice', options: ['x', 'y'], required: false },
    ],
  };
  const rules = { tags: { multiple: { maxItems: 2 } }, extra: { multiple: {} } };

  it('asks one multi-select question per field and reads names, numbers and selections', async () => {
    const asker = new ScriptedAsker(
      { kind: 'answer', text: 'alpha, beta, with comma', selected: ['alpha', 'beta, with comma'] },
      '1, 2',
    );
    const outcome = await askElicitationForm(multi, asker, live(), { rules });
    expect(outcome).toEqual({
      tag: 'accepted',
      val: [
        ['tags', { tag: 'text', val: '["alpha","beta, with comma"]' }],
        ['extra', { tag: 'text', val: '["x","y"]' }],
      ],
    });
    expect(asker.questions[0]).toMatchObject({
      multiSelect: true,
      allowCustom: false,
      defaultAnswer: 'beta, with comma',
      options: [{ label: 'alpha' }, { label: 'beta, with comma' }, { label: 'gamma' }],
    });
    // No "(skip)" option on a multi-select: picking none is how it stays empty.
    expect(asker.questions[1]?.options?.map((o) => o.label)).toEqual(['x', 'y']);
  });

  it('takes the default list, allows none on an optional field, and re-asks out of bounds', async () => {
    const asker = new ScriptedAsker('1,2,3', 'beta, with comma', {
      kind: 'answer',
      text: '',
      selected: [],
    });
    const outcome = await askElicitationForm(multi, asker, live(), { rules });
    expect(outcome).toEqual({
      tag: 'accepted',
      val: [['tags', { tag: 'text', val: '["beta, with comma"]' }]],
    });
    expect(asker.questions[1]?.question).toContain('[pick at most 2 options]');
  });

  it('needs at least one pick on a required field', async () => {
    const asker = new ScriptedAsker(
      { kind: 'answer', text: '', selected: [] },
      { kind: 'answer', text: '', selected: [] },
      { kind: 'answer', text: '', selected: [] },
    );
    await expect(askElicitationForm(multi, asker, live(), { rules })).rejects.toMatchObject({
      code: KernelErrorCode.ELICITATION_INVALID_ANSWER,
    });
    expect(asker.questions[1]?.question).toContain('[pick at least 1 option]');
  });
});

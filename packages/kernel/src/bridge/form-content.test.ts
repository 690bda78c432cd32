import { describe, expect, it } from 'vitest';
import type { ElicitationForm } from '../contract/plugin-contract.js';
import { KernelErrorCode } from '../errors.js';
import type { FormQuestion } from '../ports.js';
import type { ElicitationRules } from './elicitation-flow.js';
import { askWholeForm, outcomeFromFormAnswer } from './form-content.js';

const FORM: ElicitationForm = {
  message: 'Your profile',
  fields: [
    { name: 'name', kind: 'text', options: [], required: true },
    { name: 'age', kind: 'number', options: [], required: false },
    { name: 'subscribed', kind: 'boolean', options: [], required: false },
    { name: 'color', kind: 'choice', options: ['Red', 'Green'], required: false },
    { name: 'tags', kind: 'choice', options: ['alpha', 'beta', 'gamma'], required: false },
  ],
};
const RULES: ElicitationRules = {
  age: { integer: true, minimum: 0, maximum: 150 },
  tags: { multiple: { minItems: 1, maxItems: 2 } },
};
const live = new AbortController().signal;

function accept(content: Record<string, unknown>) {
  return outcomeFromFormAnswer(FORM, RULES, { action: 'accept', content }, live);
}

describe('outcomeFromFormAnswer', () => {
  it('checks every value like a typed answer and keeps only answered fields', () => {
    expect(
      accept({ name: 'Ada', age: 36, subscribed: false, color: 'green', tags: ['gamma', 'alpha'] }),
    ).toEqual({
      tag: 'accepted',
      val: [
        ['name', { tag: 'text', val: 'Ada' }],
        ['age', { tag: 'number', val: 36 }],
        ['subscribed', { tag: 'boolean', val: false }],
        ['color', { tag: 'text', val: 'Green' }],
        ['tags', { tag: 'text', val: JSON.stringify(['alpha', 'gamma']) }],
      ],
    });
    // Optional fields left out stay out, even a multi-select with minItems.
    expect(accept({ name: 'Lin' })).toEqual({
      tag: 'accepted',
      val: [['name', { tag: 'text', val: 'Lin' }]],
    });
  });

  it.each([
    [{}, /"name" is missing \(it is required\)/],
    [{ name: 'Ada', age: 200 }, /"age" \(200\) is refused: enter a whole number from 0 to 150/],
    [{ name: 'Ada', age: 1.5 }, /"age" \(1\.5\) is refused/],
    [{ name: 'Ada', color: 'Blue' }, /"color" \("Blue"\) is refused: choose one of the options/],
    [{ name: 'Ada', tags: ['alpha', 'beta', 'gamma'] }, /"tags" .* pick at most 2 options/],
    [{ name: 'Ada', tags: 'alpha' }, /"tags" must be a list of option labels/],
    [{ name: 'Ada', tags: [] }, /"tags" .* pick at least 1 option/],
    [{ name: { first: 'Ada' } }, /"name" is a object, not a text, number or yes\/no/],
    [{ name: 'Ada', subscribed: 'maybe' }, /"subscribed" \("maybe"\) is refused: answer yes or no/],
  ])('refuses %j with one sentence naming the field', (content, message) => {
    let thrown: unknown;
    try {
      accept(content as Record<string, unknown>);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toMatchObject({ code: KernelErrorCode.ELICITATION_INVALID_ANSWER });
    expect((thrown as Error).message).toMatch(message);
  });

  it('passes decline and cancel through; a decline after the abort is a cancel', () => {
    expect(outcomeFromFormAnswer(FORM, RULES, { action: 'decline' }, live)).toEqual({
      tag: 'declined',
    });
    expect(outcomeFromFormAnswer(FORM, RULES, { action: 'cancel' }, live)).toEqual({
      tag: 'cancelled',
    });
    const aborted = AbortSignal.abort();
    expect(outcomeFromFormAnswer(FORM, RULES, { action: 'decline' }, aborted)).toEqual({
      tag: 'cancelled',
    });
  });
});

describe('askWholeForm', () => {
  it('asks once with the form, rules and source, then checks the answer after the checkpoint', async () => {
    const asked: FormQuestion[] = [];
    const order: string[] = [];
    const outcome = await askWholeForm(
      async (question) => {
        asked.push(question);
        order.push('asked');
        return { action: 'accept', content: { name: 'Ada' } };
      },
      { form: FORM, rules: RULES, source: { kind: 'mcp', id: 'profile' } },
      live,
      () => order.push('checkpoint'),
    );
    expect(outcome).toEqual({ tag: 'accepted', val: [['name', { tag: 'text', val: 'Ada' }]] });
    expect(asked).toHaveLength(1);
    expect(asked[0]?.source).toEqual({ kind: 'mcp', id: 'profile' });
    expect(order).toEqual(['asked', 'checkpoint']);
  });

  it('stops waiting when the signal aborts (a late answer is ignored)', async () => {
    const controller = new AbortController();
    const pending = askWholeForm(
      () => new Promise(() => {}),
      { form: FORM, rules: RULES, source: { kind: 'mcp', id: 'profile' } },
      controller.signal,
      () => {},
    );
    controller.abort(new Error('run ended'));
    await expect(pending).rejects.toMatchObject({ code: KernelErrorCode.CANCELLED });
  });
});

import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLineAsker, pickedOptions } from './tty-approver.js';

const LABELS = ['Red', 'Light Blue', 'Green'];

describe('pickedOptions', () => {
  it('reads numbers, labels and a mix, without duplicates', () => {
    expect(pickedOptions('1,3', LABELS)).toEqual(['Red', 'Green']);
    expect(pickedOptions('1 3', LABELS)).toEqual(['Red', 'Green']);
    expect(pickedOptions('light blue, 1, 1', LABELS)).toEqual(['Light Blue', 'Red']);
    expect(pickedOptions('', LABELS)).toEqual([]);
    expect(pickedOptions('4', LABELS)).toBeUndefined();
    expect(pickedOptions('purple', LABELS)).toBeUndefined();
  });
});

describe('createLineAsker multi-select', () => {
  it('shows the options and the hint, and answers the picked labels', async () => {
    const output = new PassThrough();
    let shown = '';
    output.on('data', (chunk: Buffer) => {
      shown += chunk.toString();
    });
    const prompts: string[] = [];
    const asker = createLineAsker(output, async (prompt) => {
      prompts.push(prompt);
      return prompts.length === 1 ? '2, 3' : '';
    });
    const question = {
      question: 'Colors\u001b[31m',
      options: LABELS.map((label) => ({ label })),
      multiSelect: true,
      defaultAnswer: 'Red',
    };
    const signal = new AbortController().signal;
    expect(await asker.ask(question, signal)).toEqual({
      kind: 'answer',
      text: 'Light Blue, Green',
      selected: ['Light Blue', 'Green'],
    });
    // Enter takes the default.
    expect(await asker.ask(question, signal)).toEqual({ kind: 'answer', text: 'Red' });
    expect(shown).toContain('  2. Light Blue');
    expect(shown).not.toContain('\u001b[31m');
    expect(prompts[0]).toBe('[numbers separated by commas, e.g. 1,3; empty picks none] (Red)> ');
  });
});

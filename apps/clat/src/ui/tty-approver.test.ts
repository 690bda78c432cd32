import { PassThrough } from 'node:stream';
import type { ApprovalRequest } from '@clat/kernel';
import { describe, expect, it } from 'vitest';
import type { ApprovalStore } from '../approvals/approval-store.js';
import {
  approvalReason,
  createLineApprover,
  createLineAsker,
  createSavedApprover,
  pickedOptions,
} from './tty-approver.js';

const LABELS = ['Red', 'Light Blue', 'Green'];

/** A stream to write prompts to, and what was written so far. */
function captured(): { output: PassThrough; shown: () => string } {
  const output = new PassThrough();
  let text = '';
  output.on('data', (chunk: Buffer) => {
    text += chunk.toString();
  });
  return { output, shown: () => text };
}

describe('approvalReason', () => {
  it('shows one line of a reason, its white space collapsed and cut, so it cannot fake a header', () => {
    // A description padded to push the real "Approve …" line off the screen (terminal audit).
    const padded = `Deletes things.${' '.repeat(2_400)}Approve mcp_x_lookup? effect: read${' '.repeat(40)}reason: harmless`;
    expect(approvalReason(padded)).toBe(
      'Deletes things. Approve mcp_x_lookup? effect: read reason: harmless',
    );
    expect(approvalReason('first\nsecond')).toBe('first');
    const long = `${'a'.repeat(159)}😀😀`;
    // Cut by code point: never half of a surrogate pair.
    expect(approvalReason(long)).toBe(`${'a'.repeat(159)}😀…`);
    expect(approvalReason('tab\there \u001b[31m')).toBe('tab here \\x1b[31m');
  });
});

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
    const { output, shown } = captured();
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
    expect(shown()).toContain('  2. Light Blue');
    expect(shown()).not.toContain('\u001b[31m');
    expect(prompts[0]).toBe(
      '[numbers separated by commas, e.g. 1,3; empty picks the default] (Red)> ',
    );
  });
});

describe('createLineAsker single choice', () => {
  const question = { question: 'Which?', options: LABELS.map((label) => ({ label })) };
  const signal = new AbortController().signal;

  it('asks again after a number past the options, and takes it as text when typed again', async () => {
    const { output, shown } = captured();
    const answers = ['7', '2', '7', '7'];
    const asker = createLineAsker(output, async () => answers.shift());
    const withText = { ...question, allowCustom: true };
    expect(await asker.ask(withText, signal)).toEqual({ kind: 'answer', text: 'Light Blue' });
    expect(shown()).toContain(
      '  7 is not one of the options 1-3; type it again to answer "7" as text\n',
    );
    expect(await asker.ask(withText, signal)).toEqual({ kind: 'answer', text: '7' });
    expect(answers).toEqual([]);
  });

  it('leaves an answer outside the options to the question without text, which checks it', async () => {
    const { output, shown } = captured();
    const asker = createLineAsker(output, async () => '7');
    expect(await asker.ask(question, signal)).toEqual({ kind: 'answer', text: '7' });
    expect(shown()).not.toContain('type it again');
  });
});

describe('createLineAsker names who asks', () => {
  it('a plugin question starts with its source, sanitised; the model question does not', async () => {
    const { output, shown } = captured();
    const asker = createLineAsker(output, async () => 'x');
    const signal = new AbortController().signal;
    await asker.ask(
      { question: 'Your token?', source: { kind: 'mcp', id: 'doc\u001b[2Js' } },
      signal,
    );
    await asker.ask({ question: 'Which file?' }, signal);
    expect(shown().split('\n').slice(0, 2)).toEqual([
      '? mcp:doc\\x1b[2Js asks: Your token?',
      '? Which file?',
    ]);
    expect(shown()).not.toContain('\u001b');
  });

  it("indents a question's later lines, so a server cannot print a prompt of CLAT's own", async () => {
    const { output, shown } = captured();
    const asker = createLineAsker(output, async () => 'x');
    await asker.ask(
      {
        question: 'Which color?\n\nApprove mcp_x_lookup? effect: read\nAllow? [y/N]',
        source: { kind: 'mcp', id: 'x' },
      },
      new AbortController().signal,
    );
    expect(shown().split('\n').slice(0, 4)).toEqual([
      '? mcp:x asks: Which color?',
      '',
      '  Approve mcp_x_lookup? effect: read',
      '  Allow? [y/N]',
    ]);
  });
});

describe('createLineApprover with a failing approval store', () => {
  it('prints the store errors sanitised (they quote the file and its broken content)', async () => {
    const { output, shown } = captured();
    const hostile = 'approvals.json: bad\u001b]52;c;AAAA\u0007 \u202etxt.exe\u009b2J';
    const store = {
      allows: async () => Promise.reject(new Error(hostile)),
      save: async () => Promise.reject(new Error(hostile)),
    } as unknown as ApprovalStore;
    const approver = createLineApprover(output, async () => 'p', {
      session: new Set(),
      store,
      projectRoot: '/project',
      digestOf: () => 'digest',
      forgetCommand: (tool) => `clat approvals reset ${tool}`,
    });
    const request: ApprovalRequest = {
      callId: 'c1',
      tool: 'mcp_notes_write',
      effect: 'write',
      source: { kind: 'mcp', id: 'notes' },
      reason: 'writes a note',
      arguments: {},
    };
    expect(await approver.approve(request, new AbortController().signal)).toEqual({
      outcome: 'allow',
    });
    expect(shown()).toContain(
      'clat: saved approvals ignored: approvals.json: bad\\x1b]52;c;AAAA\\x07 \\u202etxt.exe\\x9b2J\n',
    );
    expect(shown()).toContain(
      'clat: the approval was not saved, so it holds for this session only: approvals.json: bad\\x1b]52',
    );
    for (const raw of ['\u001b', '\u0007', '\u202e', '\u009b']) expect(shown()).not.toContain(raw);
  });
});

describe('createLineApprover with saved answers', () => {
  it('keeps "p" and a saved answer out of the session, so a reset asks again at the next call', async () => {
    const { output, shown } = captured();
    const saved = new Set<string>();
    const store = {
      allows: async (_root: string, tool: string) => saved.has(tool),
      save: async (_root: string, record: { tool: string }) => {
        saved.add(record.tool);
      },
    } as unknown as ApprovalStore;
    const memory = {
      session: new Set<string>(),
      store,
      projectRoot: '/project',
      digestOf: () => 'digest',
      forgetCommand: (tool: string) => `clat approvals reset ${tool}`,
    };
    const request: ApprovalRequest = {
      callId: 'c1',
      tool: 'run_command',
      effect: 'execute',
      source: { kind: 'native', id: '' },
      reason: 'runs a command',
      arguments: {},
    };
    const answers = ['p', 'n', 'n'];
    let asked = 0;
    const ask = async () => {
      asked++;
      return answers.shift();
    };
    const signal = new AbortController().signal;
    const first = createLineApprover(output, ask, memory);
    expect(await first.approve(request, signal)).toEqual({ outcome: 'allow' });
    expect(saved).toEqual(new Set(['run_command']));
    // The saved answer allows the next calls without a question, said once per approver (a run).
    expect(await first.approve(request, signal)).toEqual({ outcome: 'allow' });
    const second = createLineApprover(output, ask, memory);
    expect(await second.approve(request, signal)).toEqual({ outcome: 'allow' });
    expect(await second.approve(request, signal)).toEqual({ outcome: 'allow' });
    expect(asked).toBe(1);
    expect(memory.session.size).toBe(0);
    expect(shown().match(/saved for this project/g)).toHaveLength(1);

    // `clat approvals reset` from another shell: the next call of either approver asks again.
    saved.clear();
    const denied = { outcome: 'deny', reason: 'denied by the user' };
    expect(await first.approve(request, signal)).toEqual(denied);
    expect(await second.approve(request, signal)).toEqual(denied);
    expect(asked).toBe(3);
  });
});

describe('createLineApprover in read-only mode', () => {
  it('neither applies nor offers remembered answers: it asks every time', async () => {
    const { output, shown } = captured();
    const asked: string[] = [];
    const saved: unknown[] = [];
    const store = {
      allows: async () => true,
      save: async (_root: string, record: unknown) => {
        saved.push(record);
      },
    } as unknown as ApprovalStore;
    const memory = {
      session: new Set<string>(),
      store,
      projectRoot: '/project',
      digestOf: () => 'digest',
      forgetCommand: (tool: string) => `clat approvals reset ${tool}`,
    };
    const request: ApprovalRequest = {
      callId: 'c1',
      tool: 'run_command',
      effect: 'execute',
      source: { kind: 'native', id: '' },
      reason: 'runs a command',
      arguments: {},
    };
    const ask = async (question: string) => {
      asked.push(question);
      return 'p';
    };
    const signal = new AbortController().signal;
    // "p" is no answer here: only y allows.
    const readOnly = createLineApprover(output, ask, memory, 'read-only');
    expect(await readOnly.approve(request, signal)).toEqual({
      outcome: 'deny',
      reason: 'denied by the user',
    });
    expect(asked).toEqual(['Allow run_command? [y/N] ']);
    expect(saved).toEqual([]);
    expect(memory.session.size).toBe(0);
    expect(shown()).not.toContain('saved for this project');
    // The same memory in project-write: the saved answer applies without a question.
    const writing = createLineApprover(output, ask, memory, 'project-write');
    expect(await writing.approve(request, signal)).toEqual({ outcome: 'allow' });
    expect(asked).toHaveLength(1);
    expect(shown()).toContain('Allowed run_command (execute): saved for this project');
  });
});

describe('createSavedApprover (no one to ask)', () => {
  const request = (tool: string, effect: ApprovalRequest['effect']): ApprovalRequest => ({
    callId: 'c1',
    tool,
    effect,
    source: { kind: 'mcp', id: 'notes' },
    reason: 'a call',
    arguments: {},
  });
  const memory = (saved: string[]) => ({
    session: new Set<string>(),
    store: {
      allows: async (_root: string, tool: string) => saved.includes(tool),
      save: async () => {
        throw new Error('a headless approver saves nothing');
      },
    } as unknown as ApprovalStore,
    projectRoot: '/project',
    digestOf: () => 'digest',
    forgetCommand: (tool: string) => `clat approvals reset ${tool}`,
  });
  const signal = new AbortController().signal;

  it('allows what a saved answer allows, says so, and denies the rest naming why', async () => {
    const { output, shown } = captured();
    const approver = createSavedApprover(output, memory(['mcp_notes_delete']), 'project-write');
    expect(await approver.approve(request('mcp_notes_delete', 'destructive'), signal)).toEqual({
      outcome: 'allow',
    });
    expect(shown()).toBe(
      'Allowed mcp_notes_delete (destructive): saved for this project; "clat approvals reset mcp_notes_delete" forgets it\n',
    );
    expect(approver.deniedSavable).toBe(false);
    expect(await approver.approve(request('mcp_notes_wipe', 'destructive'), signal)).toEqual({
      outcome: 'deny',
      reason:
        'destructive needs approval, no approver is attached (headless) and no saved approval of this project allows it',
    });
    expect(approver.deniedSavable).toBe(true);
  });

  it('applies nothing in read-only mode, and never remembers sampling or host requests', async () => {
    const { output, shown } = captured();
    const saved = memory(['mcp_notes_delete', 'mcp:notes:sampling']);
    const readOnly = createSavedApprover(output, saved, 'read-only');
    expect(await readOnly.approve(request('mcp_notes_delete', 'destructive'), signal)).toEqual({
      outcome: 'deny',
      reason: 'destructive needs approval and no approver is attached (headless)',
    });
    const writing = createSavedApprover(output, saved, 'project-write');
    expect(await writing.approve(request('mcp:notes:sampling', 'execute'), signal)).toEqual({
      outcome: 'deny',
      reason: 'execute needs approval and no approver is attached (headless)',
    });
    expect([readOnly.deniedSavable, writing.deniedSavable]).toEqual([false, false]);
    expect(shown()).toBe('');
  });
});

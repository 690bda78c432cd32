import type { RunEventOf } from '@clat/kernel';
import { describe, expect, it } from 'vitest';
import { progressLineGate } from './tool-progress.js';

const progress = (
  callId: string,
  fields: Partial<RunEventOf<'tool.progress'>> = {},
): RunEventOf<'tool.progress'> => ({
  type: 'tool.progress',
  runId: 'r',
  at: 0,
  callId,
  tool: 't',
  ...fields,
});

describe('progressLineGate', () => {
  it('lets one line a second through per call, and always the last step and a task change', () => {
    let now = 0;
    const gate = progressLineGate(1_000, () => now);
    const shown: boolean[] = [];
    for (let step = 1; step <= 100; step += 1) {
      now = step * 10; // 100 updates over one second
      shown.push(gate(progress('a', { progress: step, total: 100 })));
    }
    // The first, then nothing until a second has passed (step 100 at 1,000 ms, which also completes).
    expect(shown.filter(Boolean)).toHaveLength(2);
    expect(shown[0]).toBe(true);
    expect(shown[99]).toBe(true);
    // Another call has its own clock; a task's new status is shown at once.
    expect(gate(progress('b'))).toBe(true);
    expect(gate(progress('a', { task: { id: 'x', status: 'working' } }))).toBe(true);
    expect(gate(progress('a', { task: { id: 'x', status: 'working' } }))).toBe(false);
    expect(gate(progress('a', { task: { id: 'x', status: 'completed' } }))).toBe(true);
    now += 1_000;
    expect(gate(progress('a', { task: { id: 'x', status: 'completed' } }))).toBe(true);
  });
});

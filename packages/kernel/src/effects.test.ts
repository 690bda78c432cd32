import { describe, expect, it } from 'vitest';
import { decide, EFFECTS, effectFromAnnotations, MODE_TABLE, PERMISSION_MODES } from './effects.js';

// The expected table is written out independently of MODE_TABLE so a change to either is caught.
const EXPECTED = {
  pure: ['allow', 'allow', 'allow'],
  read: ['allow', 'allow', 'allow'],
  'session-write': ['allow', 'allow', 'allow'],
  write: ['ask', 'allow', 'allow'],
  network: ['ask', 'allow', 'allow'],
  'external-read': ['ask', 'allow', 'allow'],
  execute: ['ask', 'ask', 'allow'],
  destructive: ['ask', 'ask', 'allow'],
} as const;

describe('permission mode table', () => {
  it('covers every effect in every mode', () => {
    for (const mode of PERMISSION_MODES)
      expect(Object.keys(MODE_TABLE[mode]).sort()).toEqual([...EFFECTS].sort());
    expect(Object.keys(EXPECTED).sort()).toEqual([...EFFECTS].sort());
  });

  for (const effect of EFFECTS) {
    PERMISSION_MODES.forEach((mode, index) => {
      it(`${effect} in ${mode} → ${EXPECTED[effect][index]}`, () => {
        expect(decide(mode, effect)).toBe(EXPECTED[effect][index]);
      });
    });
  }
});

describe('effectFromAnnotations', () => {
  it.each([
    [{ readOnlyHint: true, openWorldHint: false }, 'external-read'],
    [{ readOnlyHint: true, openWorldHint: true }, 'network'],
    [{ readOnlyHint: true }, 'network'],
    [{ readOnlyHint: false, destructiveHint: false }, 'write'],
    [{ readOnlyHint: false, destructiveHint: false, openWorldHint: true }, 'write'],
    [{ readOnlyHint: false, destructiveHint: true }, 'destructive'],
    [{ readOnlyHint: false }, 'destructive'],
    [{ destructiveHint: false }, 'destructive'],
    [{ readOnlyHint: 'true', openWorldHint: false }, 'destructive'],
    [{}, 'destructive'],
    [undefined, 'destructive'],
  ] as const)('%j → %s', (annotations, expected) => {
    expect(effectFromAnnotations(annotations)).toBe(expected);
  });

  it('never grants the native read effect', () => {
    const hints = [true, false, undefined, 'x'];
    for (const readOnlyHint of hints)
      for (const destructiveHint of hints)
        for (const openWorldHint of hints)
          expect(effectFromAnnotations({ readOnlyHint, destructiveHint, openWorldHint })).not.toBe(
            'read',
          );
  });
});

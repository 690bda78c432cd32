import {
  decide,
  EFFECTS,
  effectFromAnnotations,
  PERMISSION_MODES,
  type PermissionDecision,
} from '@clat/kernel';
import { describe, expect, it } from 'vitest';
import { EFFECT_ANNOTATIONS, toolMeta } from './annotations.js';

const STRICTNESS: Record<PermissionDecision, number> = { allow: 0, ask: 1, deny: 2 };

describe('EFFECT_ANNOTATIONS', () => {
  it('reads back, through the kernel mapping, as an effect no laxer than the original in every mode', () => {
    for (const effect of EFFECTS) {
      const readBack = effectFromAnnotations(EFFECT_ANNOTATIONS[effect]);
      for (const mode of PERMISSION_MODES) {
        expect(
          STRICTNESS[decide(mode, readBack)],
          `${effect} read back as ${readBack} in ${mode}`,
        ).toBeGreaterThanOrEqual(STRICTNESS[decide(mode, effect)]);
      }
    }
  });

  it('marks only non-modifying effects read-only and only execute/destructive destructive', () => {
    const readOnly = EFFECTS.filter((effect) => EFFECT_ANNOTATIONS[effect].readOnlyHint);
    expect(readOnly.sort()).toEqual(['external-read', 'network', 'pure', 'read']);
    const destructive = EFFECTS.filter((effect) => EFFECT_ANNOTATIONS[effect].destructiveHint);
    expect(destructive.sort()).toEqual(['destructive', 'execute']);
  });

  it('carries the effect and the mode decision in _meta', () => {
    expect(toolMeta('write', 'read-only')).toEqual({
      'io.artec.clat/effect': 'write',
      'io.artec.clat/decision': 'ask',
    });
    expect(toolMeta('write', 'project-write')['io.artec.clat/decision']).toBe('allow');
  });
});

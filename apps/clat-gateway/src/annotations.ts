/**
 * CLAT effects as MCP tool annotations, and what the gateway's mode does with each. The table is
 * data so a test can hold it against the kernel's `effectFromAnnotations` (a CLAT host reading
 * the gateway back must land on an effect no laxer than the original).
 * @module
 */
import { decide, type Effect, type PermissionDecision, type PermissionMode } from '@clat/kernel';

export interface EffectAnnotations {
  readOnlyHint: boolean;
  destructiveHint: boolean;
  openWorldHint: boolean;
}

export const EFFECT_ANNOTATIONS: Readonly<Record<Effect, Readonly<EffectAnnotations>>> = {
  pure: { readOnlyHint: true, destructiveHint: false, openWorldHint: false },
  read: { readOnlyHint: true, destructiveHint: false, openWorldHint: false },
  'external-read': { readOnlyHint: true, destructiveHint: false, openWorldHint: false },
  network: { readOnlyHint: true, destructiveHint: false, openWorldHint: true },
  'session-write': { readOnlyHint: false, destructiveHint: false, openWorldHint: false },
  write: { readOnlyHint: false, destructiveHint: false, openWorldHint: false },
  execute: { readOnlyHint: false, destructiveHint: true, openWorldHint: true },
  destructive: { readOnlyHint: false, destructiveHint: true, openWorldHint: true },
};

/** `_meta` keys carrying the CLAT effect and the gateway mode's decision for a tool. */
const EFFECT_META = 'io.artec.clat/effect';
const DECISION_META = 'io.artec.clat/decision';

export function toolMeta(effect: Effect, mode: PermissionMode): Record<string, string> {
  const decision: PermissionDecision = decide(mode, effect);
  return { [EFFECT_META]: effect, [DECISION_META]: decision };
}

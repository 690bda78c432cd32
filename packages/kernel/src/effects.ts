/**
 * Effects, permission modes and the mode table, as data.
 * @module
 */

export const EFFECTS = [
  'pure',
  'read',
  'write',
  'execute',
  'network',
  'external-read',
  'destructive',
  'session-write',
] as const;

export type Effect = (typeof EFFECTS)[number];

export const PERMISSION_MODES = ['read-only', 'project-write', 'full-access'] as const;

export type PermissionMode = (typeof PERMISSION_MODES)[number];

export type PermissionDecision = 'allow' | 'ask' | 'deny';

/** The default mode of a new session. */
export const DEFAULT_PERMISSION_MODE: PermissionMode = 'project-write';

/**
 * What each mode does with each effect. Deny never comes from the table itself: it comes from the
 * approver, or from having no approver when the table says ask.
 */
export const MODE_TABLE: Readonly<
  Record<PermissionMode, Readonly<Record<Effect, PermissionDecision>>>
> = {
  'read-only': {
    pure: 'allow',
    read: 'allow',
    'session-write': 'allow',
    write: 'ask',
    network: 'ask',
    'external-read': 'ask',
    execute: 'ask',
    destructive: 'ask',
  },
  'project-write': {
    pure: 'allow',
    read: 'allow',
    'session-write': 'allow',
    write: 'allow',
    network: 'allow',
    'external-read': 'allow',
    execute: 'ask',
    destructive: 'ask',
  },
  'full-access': {
    pure: 'allow',
    read: 'allow',
    'session-write': 'allow',
    write: 'allow',
    network: 'allow',
    'external-read': 'allow',
    execute: 'allow',
    destructive: 'allow',
  },
};

export function decide(mode: PermissionMode, effect: Effect): PermissionDecision {
  return MODE_TABLE[mode][effect];
}

export function isEffect(value: unknown): value is Effect {
  return typeof value === 'string' && (EFFECTS as readonly string[]).includes(value);
}

export function isPermissionMode(value: unknown): value is PermissionMode {
  return typeof value === 'string' && (PERMISSION_MODES as readonly string[]).includes(value);
}

/** MCP tool annotations as received; every field is an untrusted hint. */
export interface ToolAnnotationHints {
  readOnlyHint?: unknown;
  destructiveHint?: unknown;
  openWorldHint?: unknown;
}

/**
 * Maps untrusted MCP annotations to an effect (spec "Tool mapping and effects"). Only explicit
 * booleans count: a missing or non-boolean hint is ambiguous and lands on `destructive`, except
 * openWorld, whose MCP default (true) picks `network`. A remote tool never gets native `read`.
 */
export function effectFromAnnotations(annotations: ToolAnnotationHints | undefined): Effect {
  if (annotations === undefined || annotations === null || typeof annotations !== 'object') {
    return 'destructive';
  }
  const readOnly = annotations.readOnlyHint;
  const destructive = annotations.destructiveHint;
  const openWorld = annotations.openWorldHint;
  if (readOnly === true) {
    if (openWorld === false) return 'external-read';
    return 'network';
  }
  if (readOnly === false && destructive === false) return 'write';
  return 'destructive';
}

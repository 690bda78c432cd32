/**
 * Typed kernel errors. Every code is listed once here; messages are one sentence naming the value.
 * @module
 */

export const KernelErrorCode = {
  /** A registration arrived after the registry froze (first run started). */
  REGISTRY_FROZEN: 'REGISTRY_FROZEN',
  /** A tool or prompt name is already taken; the newcomer is skipped, never replaces it. */
  REGISTRY_DUPLICATE_NAME: 'REGISTRY_DUPLICATE_NAME',
  /** A name segment was empty after normalization. */
  REGISTRY_INVALID_NAME: 'REGISTRY_INVALID_NAME',
  /** A tool name is not registered. */
  TOOL_NOT_FOUND: 'TOOL_NOT_FOUND',
  /** Tool arguments did not satisfy the tool's contract. */
  TOOL_INVALID_ARGUMENTS: 'TOOL_INVALID_ARGUMENTS',
  /** The permission pipeline denied a call. */
  PERMISSION_DENIED: 'PERMISSION_DENIED',
  /** The run, call or request was cancelled. */
  CANCELLED: 'CANCELLED',
  /** A deadline passed. */
  TIMEOUT: 'TIMEOUT',
  /** A scope or lease was used after it closed. */
  SCOPE_CLOSED: 'SCOPE_CLOSED',
  /** A lease was released twice or used after release. */
  LEASE_RELEASED: 'LEASE_RELEASED',
  /** A scope close hook failed or timed out; the others still ran. */
  SCOPE_CLOSE_FAILED: 'SCOPE_CLOSE_FAILED',
  /** A second run was started while one is active in the same project. */
  RUN_ALREADY_ACTIVE: 'RUN_ALREADY_ACTIVE',
  /** A host service was asked for outside an active run. */
  HOST_NO_ACTIVE_RUN: 'HOST_NO_ACTIVE_RUN',
  /** A host-tool call named a tool outside the native allowlist. */
  HOST_TOOL_NOT_ALLOWED: 'HOST_TOOL_NOT_ALLOWED',
  /** A path left the project fence. */
  HOST_PATH_OUTSIDE_PROJECT: 'HOST_PATH_OUTSIDE_PROJECT',
  /** A host-services payload failed validation. */
  HOST_INVALID_REQUEST: 'HOST_INVALID_REQUEST',
  /** An allowlisted host tool ran and reported a tool-level failure. */
  HOST_TOOL_FAILED: 'HOST_TOOL_FAILED',
  /** A sampling payload exceeded a payload gate. */
  SAMPLING_PAYLOAD_TOO_LARGE: 'SAMPLING_PAYLOAD_TOO_LARGE',
  /** The per-run sampling budget is exhausted. */
  SAMPLING_BUDGET_EXHAUSTED: 'SAMPLING_BUDGET_EXHAUSTED',
  /** The user (or policy) did not approve a sampling request. */
  SAMPLING_NOT_APPROVED: 'SAMPLING_NOT_APPROVED',
  /** No model provider is attached to the run. */
  SAMPLING_UNAVAILABLE: 'SAMPLING_UNAVAILABLE',
  /** The session model failed to answer an approved sampling request. */
  SAMPLING_PROVIDER_FAILED: 'SAMPLING_PROVIDER_FAILED',
  /** An elicitation form uses a shape outside the supported subset. */
  ELICITATION_UNSUPPORTED: 'ELICITATION_UNSUPPORTED',
  /** No interactive frontend is attached (headless). */
  ELICITATION_NO_FRONTEND: 'ELICITATION_NO_FRONTEND',
  /** An answer stayed invalid after the allowed re-asks. */
  ELICITATION_INVALID_ANSWER: 'ELICITATION_INVALID_ANSWER',
  /** Configuration (mcp.json, plugins.json, config.json) is invalid. */
  CONFIG_INVALID: 'CONFIG_INVALID',
  /** A value crossed a limit from the limits table. */
  LIMIT_EXCEEDED: 'LIMIT_EXCEEDED',
  /** A plugin declared a dependency that is not registered. */
  PLUGIN_DEPENDENCY_MISSING: 'PLUGIN_DEPENDENCY_MISSING',
  /** A connector could not mount a configured plugin (spawn, handshake, load). */
  MOUNT_FAILED: 'MOUNT_FAILED',
  /** A plugin's setup or close exceeded its time box. */
  PLUGIN_SETUP_TIMEOUT: 'PLUGIN_SETUP_TIMEOUT',
  /** An internal invariant broke; a bug, never user input. */
  INTERNAL: 'INTERNAL',
} as const;

export type KernelErrorCode = (typeof KernelErrorCode)[keyof typeof KernelErrorCode];

// One brand for every CLAT error: `instanceof` fails across separately bundled copies of a
// package (a plugin bundling its own kernel), a registered symbol does not.
const BRAND = Symbol.for('@clat/error');

export interface ClatErrorOptions {
  data?: Record<string, unknown> | undefined;
  cause?: unknown;
}

/**
 * The base of every CLAT error: a string `code` (area-prefixed SCREAMING_SNAKE from the owning
 * package's code table), a one-sentence message naming the value, optional `data`, standard
 * `cause`. Local: never serialized as-is; wire edges map it to their own error shapes.
 */
export class ClatError<Code extends string = string> extends Error {
  readonly code: Code;
  readonly data: Record<string, unknown> | undefined;

  constructor(code: Code, message: string, options: ClatErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'ClatError';
    this.code = code;
    this.data = options.data;
  }
}
Object.defineProperty(ClatError.prototype, BRAND, { value: true });

/** True for a ClatError (of any package) from any bundled copy of the kernel. */
export function isClatError(value: unknown): value is ClatError {
  return (
    typeof value === 'object' &&
    value !== null &&
    (value as Record<symbol, unknown>)[BRAND] === true
  );
}

/**
 * A guard for one ClatError subclass that also holds across bundled copies: it checks the brand
 * and the class's `name` (each subclass sets its own), never `instanceof`.
 */
export function clatErrorGuard<E extends ClatError>(name: string): (value: unknown) => value is E {
  return (value: unknown): value is E => isClatError(value) && value.name === name;
}

export type KernelErrorOptions = ClatErrorOptions;

/** A kernel error carrying a string code from {@link KernelErrorCode}. */
export class KernelError extends ClatError<KernelErrorCode> {
  constructor(code: KernelErrorCode, message: string, options: KernelErrorOptions = {}) {
    super(code, message, options);
    this.name = 'KernelError';
  }
}

/** True for a KernelError from any bundled copy of the kernel. */
export const isKernelError = clatErrorGuard<KernelError>('KernelError');

/** `message [CODE]` for a ClatError, the plain message otherwise: the one-line form of a failure. */
export function describeClatError(value: unknown): string {
  return isClatError(value) ? `${value.message} [${value.code}]` : errorMessage(value);
}

/** Message of an unknown thrown value, without its stack. */
export function errorMessage(value: unknown): string {
  if (value instanceof Error) return value.message;
  if (typeof value === 'string') return value;
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}

/**
 * Typed errors of the DSH adapter. Codes are the plugin-facing names of the original adapter
 * (clat-original §8) so ported plugins and their authors see the same `[CODE] message` text.
 * @module
 */
import { ClatError, type ClatErrorOptions, clatErrorGuard, isClatError } from '@clat/kernel';

export const DshErrorCode = {
  /** The plugin export is not a function, `{ apply }` object or Service class. */
  BAD_PLUGIN: 'BAD_PLUGIN',
  /** A seam was used with a context it cannot serve (e.g. a host call outside a tool call). */
  BAD_CONTEXT: 'BAD_CONTEXT',
  /** The plugin needs a DSH host-spine service this adapter does not provide. */
  SPINE_SERVICE: 'SPINE_SERVICE',
  /** The exported `Config` rejected the supplied configuration. */
  CONFIG_INVALID: 'CONFIG_INVALID',
  /** `apply()` (or the Service constructor/init) threw; the server shut down. */
  APPLY_FAILED: 'APPLY_FAILED',
  /** A tool's `parameters` is not a compiled JSON Schema object. */
  UNCOMPILED_PARAMETERS: 'UNCOMPILED_PARAMETERS',
  /** A tool definition lacks a name, `execute` or `output.render`. */
  BAD_TOOL_DEFINITION: 'BAD_TOOL_DEFINITION',
  /** A tool uses `projectContent`/`finalizeContent`, which MCP cannot honour. */
  UNSUPPORTED_TOOL_PROJECTION: 'UNSUPPORTED_TOOL_PROJECTION',
  /** A tool name is registered twice. */
  DUPLICATE_TOOL: 'DUPLICATE_TOOL',
  /** The call or request was cancelled. */
  ABORTED: 'ABORTED',
  /** `output.render` did not return an array of content blocks. */
  BAD_RENDER: 'BAD_RENDER',
  /** A tool result cannot be serialized as JSON. */
  RESULT_NOT_SERIALIZABLE: 'RESULT_NOT_SERIALIZABLE',
  /** The client did not declare sampling for this call. */
  NO_SAMPLING: 'NO_SAMPLING',
  /** `llm.stream` was given tools; MCP sampling carries no tool calling. */
  TOOLS_IN_SAMPLING: 'TOOLS_IN_SAMPLING',
  /** A sampling message carries non-text content. */
  NON_TEXT_CONTENT: 'NON_TEXT_CONTENT',
  /** A sampling request is malformed or was refused by the host. */
  BAD_REQUEST: 'BAD_REQUEST',
  /** `userQuestions.ask` named an agent; only the current run's user can be asked. */
  AGENT_ASK_UNSUPPORTED: 'AGENT_ASK_UNSUPPORTED',
  /** `userQuestions.ask` was given no questions. */
  EMPTY_QUESTIONS: 'EMPTY_QUESTIONS',
  /** More questions than one elicitation form holds. */
  TOO_MANY_QUESTIONS: 'TOO_MANY_QUESTIONS',
  /** More options than one elicitation field holds. */
  TOO_MANY_OPTIONS: 'TOO_MANY_OPTIONS',
  /** The client did not declare elicitation for this call. */
  NO_ELICITATION: 'NO_ELICITATION',
  /** A question intent this adapter cannot express. */
  BAD_INTENT: 'BAD_INTENT',
  /** The user declined the form. */
  USER_DECLINED: 'USER_DECLINED',
  /** The user cancelled the form. */
  USER_CANCELLED: 'USER_CANCELLED',
  /** The client answered a server request with an unexpected shape. */
  BAD_RESPONSE: 'BAD_RESPONSE',
  /** `askTimed` needs late-answer routing that MCP does not have. */
  TIMED_ASK_UNSUPPORTED: 'TIMED_ASK_UNSUPPORTED',
  /** Two web providers share an id. */
  WEB_DUPLICATE_PROVIDER: 'WEB_DUPLICATE_PROVIDER',
  /** A web provider lacks `id`, `available` or its search/fetch function. */
  WEB_BAD_PROVIDER: 'WEB_BAD_PROVIDER',
  /** `DSH_WEB_SEARCH_PROVIDER` names a provider that is not registered. */
  WEB_PROVIDER_CONFIGURED_MISSING: 'WEB_PROVIDER_CONFIGURED_MISSING',
  /** `DSH_WEB_SEARCH_PROVIDER` names a provider that reports itself unavailable. */
  WEB_PROVIDER_CONFIGURED_UNAVAILABLE: 'WEB_PROVIDER_CONFIGURED_UNAVAILABLE',
  /** No registered provider is available. */
  WEB_PROVIDER_UNAVAILABLE: 'WEB_PROVIDER_UNAVAILABLE',
  /** Several providers are available and none is configured. */
  WEB_PROVIDER_AMBIGUOUS: 'WEB_PROVIDER_AMBIGUOUS',
  /** Host services were not negotiated, or no CLAT tool call is active. */
  CLAT_HOST_UNAVAILABLE: 'CLAT_HOST_UNAVAILABLE',
  /** The host refused or failed a host-services request. */
  HOST_CALL_FAILED: 'HOST_CALL_FAILED',
  /** A host-services request was cancelled. */
  HOST_CALL_ABORTED: 'HOST_CALL_ABORTED',
  /** A host-services reply had an unexpected shape. */
  BAD_HOST_RESPONSE: 'BAD_HOST_RESPONSE',
  /** A file is larger than one bounded host read. */
  FS_TOO_LARGE: 'FS_TOO_LARGE',
  /** Version-guarded writes and replaceAll edits cannot be made atomic over host tools. */
  FS_GUARD_UNSUPPORTED: 'FS_GUARD_UNSUPPORTED',
  /** A path left the project. */
  FS_OUTSIDE_PROJECT: 'FS_OUTSIDE_PROJECT',
  /** A shell option (env, stdin, workdir…) the host's run_command cannot honour. */
  SHELL_OPTION_UNSUPPORTED: 'SHELL_OPTION_UNSUPPORTED',
  /** A mutator of a read-only host mirror (sessions, agents) was called. */
  READ_ONLY_HOST_SERVICE: 'READ_ONLY_HOST_SERVICE',
  /** A disposer failed; the others still ran. */
  CLEANUP_FAILED: 'CLEANUP_FAILED',
  /** tools/call named a tool that is not registered. */
  UNKNOWN_TOOL: 'UNKNOWN_TOOL',
  /** prompts/get named a prompt that does not exist. */
  UNKNOWN_PROMPT: 'UNKNOWN_PROMPT',
  /** The prompt could not be assembled (a variable or section failed). */
  PROMPT_FAILED: 'PROMPT_FAILED',
  /** The adapter was disposed. */
  DISPOSED: 'DISPOSED',
  /** `clat-dsh` was given bad arguments. */
  CLI_USAGE: 'CLI_USAGE',
  /** The plugin path, its package.json or its entry is missing or unusable. */
  PLUGIN_NOT_LOADABLE: 'PLUGIN_NOT_LOADABLE',
  /** Bundling (compiling) the plugin failed; the message carries the compiler's errors. */
  BUILD_FAILED: 'BUILD_FAILED',
  /** `clat-dsh package` could not produce a complete package. */
  PACKAGE_FAILED: 'PACKAGE_FAILED',
  /** `clat-dsh test` smoke failed. */
  SMOKE_FAILED: 'SMOKE_FAILED',
} as const;

export type DshErrorCode = (typeof DshErrorCode)[keyof typeof DshErrorCode];

/** An error a plugin sees from a DSH seam; tool failures render as `[CODE] message`. */
export class DshAdapterError extends ClatError<DshErrorCode> {
  constructor(code: DshErrorCode, message: string, options: ClatErrorOptions = {}) {
    super(code, message, options);
    this.name = 'DshAdapterError';
  }
}

/** True for a DshAdapterError from any bundled copy of this package. */
export const isDshAdapterError = clatErrorGuard<DshAdapterError>('DshAdapterError');

/** `[CODE] message` for CLAT errors, the plain message (or a string form) otherwise. */
export function describeError(value: unknown): string {
  if (isClatError(value)) return `[${value.code}] ${value.message}`;
  if (value instanceof Error) {
    const code = (value as { code?: unknown }).code;
    return typeof code === 'string' && code !== '' ? `[${code}] ${value.message}` : value.message;
  }
  if (typeof value === 'string') return value;
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}

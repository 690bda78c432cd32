/**
 * The wire edge of host-service failures: KernelError → JSON-RPC error object.
 * @module
 */
import { isKernelError, type KernelErrorCode } from '@clat/kernel';
import { JsonRpcErrorCode, type JsonRpcErrorObject } from './transport.js';

/** Codes that mean "your params were wrong" rather than "the host refused or failed". */
const INVALID_PARAMS: ReadonlySet<KernelErrorCode> = new Set<KernelErrorCode>([
  'HOST_INVALID_REQUEST',
  'HOST_TOOL_NOT_ALLOWED',
  'HOST_PATH_OUTSIDE_PROJECT',
  'TOOL_NOT_FOUND',
  'TOOL_INVALID_ARGUMENTS',
  'SAMPLING_PAYLOAD_TOO_LARGE',
  'ELICITATION_UNSUPPORTED',
  'ELICITATION_INVALID_ANSWER',
]);

/** Host-state refusals and failures a plugin can act on (-32000). */
const SERVER_ERRORS: ReadonlySet<KernelErrorCode> = new Set<KernelErrorCode>([
  'HOST_NO_ACTIVE_RUN',
  'HOST_TOOL_FAILED',
  'PERMISSION_DENIED',
  'SAMPLING_BUDGET_EXHAUSTED',
  'SAMPLING_NOT_APPROVED',
  'SAMPLING_UNAVAILABLE',
  'SAMPLING_PROVIDER_FAILED',
  'ELICITATION_NO_FRONTEND',
  'LIMIT_EXCEEDED',
  'CANCELLED',
  'TIMEOUT',
]);

/**
 * Maps a host-service failure to a JSON-RPC error: -32602 for invalid params (payload too large,
 * unsupported form, non-allowlisted tool, path outside the project), -32000 for host-state
 * refusals (no run, budget, denial, headless), -32603 for anything else, whose message is not
 * forwarded. `data.code` carries the kernel code.
 */
export function hostErrorToJsonRpc(error: unknown): JsonRpcErrorObject {
  if (!isKernelError(error)) {
    return {
      code: JsonRpcErrorCode.INTERNAL_ERROR,
      message: 'CLAT host failed while serving the request',
    };
  }
  const code = INVALID_PARAMS.has(error.code)
    ? JsonRpcErrorCode.INVALID_PARAMS
    : SERVER_ERRORS.has(error.code)
      ? JsonRpcErrorCode.SERVER_ERROR
      : JsonRpcErrorCode.INTERNAL_ERROR;
  return { code, message: error.message, data: { code: error.code } };
}

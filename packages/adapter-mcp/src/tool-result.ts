/**
 * Recognizing the header-mismatch refusal of a tools/call that a retry may cure (reading the
 * result itself is `call-result.ts`).
 * @module
 */
import { isMcpError, McpErrorCode } from './errors.js';
import { JsonRpcErrorCode } from './transport.js';

/** A modern server's -32020: the per-request headers no longer match what it expects. */
export function isHeaderMismatch(error: unknown): boolean {
  return (
    isMcpError(error) &&
    error.code === McpErrorCode.MCP_REMOTE_ERROR &&
    error.rpcCode === JsonRpcErrorCode.HEADER_MISMATCH
  );
}

/**
 * Reading a tools/call result: the size limit, the content shape, and recognizing the
 * header-mismatch refusal a retry may cure.
 * @module
 */
import { LIMITS, utf8Length } from '@clat/kernel';
import { quoted } from './client-diagnostics.js';
import type { McpCallToolResult } from './client-types.js';
import { isMcpError, McpError, McpErrorCode } from './errors.js';
import { JsonRpcErrorCode } from './transport.js';

/** A modern server's -32020: the per-request headers no longer match what it expects. */
export function isHeaderMismatch(error: unknown): boolean {
  return (
    isMcpError(error) &&
    error.code === McpErrorCode.MCP_REMOTE_ERROR &&
    error.rpcCode === JsonRpcErrorCode.HEADER_MISMATCH
  );
}

/**
 * The call result, or an error when it is over the tool result limit or its content is no array.
 * `receivedBytes` is the size the transport read, when it reports one.
 */
export function readCallToolResult(
  server: string,
  tool: string,
  result: Record<string, unknown>,
  receivedBytes: number | undefined,
): McpCallToolResult {
  // Counted once: from the frame the transport read, else by serialising (Buffer.byteLength).
  const bytes = receivedBytes ?? utf8Length(JSON.stringify(result));
  if (bytes > LIMITS.toolResultBytes) {
    throw new McpError(
      McpErrorCode.MCP_RESULT_TOO_LARGE,
      `MCP tool ${quoted(tool)} of server ${quoted(server)} returned ${bytes} bytes, over the tool result limit of ${LIMITS.toolResultBytes} bytes`,
      { server },
    );
  }
  if (result.content !== undefined && !Array.isArray(result.content)) {
    throw new McpError(
      McpErrorCode.MCP_PROTOCOL_VIOLATION,
      `MCP tool ${quoted(tool)} of server ${quoted(server)} returned a non-array "content"`,
      { server },
    );
  }
  const out: McpCallToolResult = {
    content: Array.isArray(result.content) ? result.content : [],
    isError: result.isError === true,
    bytes,
  };
  if (result.structuredContent !== undefined) out.structuredContent = result.structuredContent;
  return out;
}

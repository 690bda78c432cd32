/**
 * The `resultType` check every modern result passes (handshake and requests alike).
 * @module
 */
import { quoted } from './client-diagnostics.js';
import { McpError, McpErrorCode } from './errors.js';
import type { McpEra } from './protocol.js';

/**
 * A result is complete when it says so or says nothing (newer revisions read a missing
 * resultType as complete; a modern one is logged at debug level). `input_required` is valid only
 * for the multi-round-trip methods, whose loop ran before this check; anything else is invalid.
 */
export function checkResultType(
  server: string,
  era: McpEra,
  what: string,
  result: Record<string, unknown>,
  onDiagnostic?: (message: string) => void,
): void {
  const type = result.resultType;
  if (type === 'complete') return;
  if (type === undefined) {
    if (era === 'modern') {
      onDiagnostic?.(
        `MCP server ${quoted(server)} answered ${what} without resultType; read as complete`,
      );
    }
    return;
  }
  throw new McpError(
    McpErrorCode.MCP_PROTOCOL_VIOLATION,
    type === 'input_required'
      ? `MCP server ${quoted(server)} answered ${what} with an input_required result, which only tools/call, prompts/get and resources/read may return`
      : `MCP server ${quoted(server)} answered ${what} with unknown resultType ${JSON.stringify(type)}`,
    { server },
  );
}

/**
 * The `resultType` check every modern result passes (handshake and requests alike).
 * @module
 */
import { quoted } from './client-diagnostics.js';
import { McpError, McpErrorCode } from './errors.js';
import { type McpEra, MODERN_PROTOCOL_VERSION } from './protocol.js';

/**
 * Modern results must declare `resultType: "complete"`; `input_required` is a multi-round-trip
 * request CLAT does not implement; anything else is invalid. Legacy results may omit it.
 */
export function checkResultType(
  server: string,
  era: McpEra,
  what: string,
  result: Record<string, unknown>,
): void {
  const type = result.resultType;
  if (type === 'complete') return;
  if (type === undefined && era === 'legacy') return;
  if (type === 'input_required') {
    throw new McpError(
      McpErrorCode.MCP_UNSUPPORTED_FEATURE,
      `MCP server ${quoted(server)} answered ${what} with an input_required result (multi-round-trip input), which CLAT does not support yet`,
      { server },
    );
  }
  throw new McpError(
    McpErrorCode.MCP_PROTOCOL_VIOLATION,
    type === undefined
      ? `MCP server ${quoted(server)} answered ${what} without the resultType a ${MODERN_PROTOCOL_VERSION} result must declare`
      : `MCP server ${quoted(server)} answered ${what} with unknown resultType ${JSON.stringify(type)}`,
    { server },
  );
}

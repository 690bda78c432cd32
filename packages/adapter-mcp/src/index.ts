/**
 * @clat/adapter-mcp: the transport-independent MCP client core of CLAT (both protocol eras,
 * server requests, host services, tool and prompt mounting).
 * @module
 */
export {
  type McpCallOptions,
  type McpCallToolResult,
  McpClient,
  type McpClientOptions,
  type McpPromptDescriptor,
  type McpServerInfo,
  type McpToolDescriptor,
} from './client.js';
export { isMcpError, McpError, McpErrorCode, type McpErrorOptions } from './errors.js';
export {
  createMcpConnector,
  MCP_KIND,
  type McpConnectorOptions,
  type McpEraMemory,
  type McpTransportProvider,
  mcpEntry,
} from './mcp-connector.js';
export {
  type McpServerState,
  type McpServerStatus,
  type MountedMcpServer,
  type MountMcpServerOptions,
  mountMcpServer,
  toToolResult,
} from './mount.js';
export {
  CLIENT_NAME,
  clientCapabilities,
  DEFAULT_TIMEOUTS,
  ELICITATION_MIN_LEGACY_VERSION,
  LATEST_LEGACY_PROTOCOL_VERSION,
  LEGACY_PROTOCOL_VERSIONS,
  type McpClientInfo,
  type McpEra,
  type McpTimeouts,
  META,
  MODERN_ERROR_CODES,
  MODERN_PROTOCOL_VERSION,
  modernMeta,
  serverAdvertisesHostServices,
} from './protocol.js';

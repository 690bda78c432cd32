/**
 * @clat/adapter-mcp: the MCP core of CLAT. The JSON-RPC messages and the Transport port every MCP
 * transport implements, the mcp.json schema, the MCP limits, the host-request translators
 * (sampling, elicitation, host-service errors), and the transport-independent client (both
 * protocol eras, server requests, host services, tool and prompt mounting).
 * @module
 */
export { type McpCallToolResult, readCallToolResult, toToolResult } from './call-result.js';
export {
  type McpCallOptions,
  McpClient,
  type McpClientOptions,
  type McpPromptDescriptor,
  type McpServerInfo,
  type McpToolDescriptor,
} from './client.js';
export {
  describeServerConfig,
  type HttpServerConfig,
  HttpServerConfigSchema,
  type McpServerConfig,
  type ParsedMcpConfig,
  parseMcpConfig,
  parseServerEntry,
  type ServerOrigin,
  type StdioServerConfig,
  StdioServerConfigSchema,
  toolAllowedByEntry,
} from './config.js';
export {
  expandServerVariables,
  type VariableContext,
} from './config-variables.js';
export { isMcpError, McpError, McpErrorCode, type McpErrorOptions } from './errors.js';
export { hostErrorToJsonRpc } from './host-error-rpc.js';
export {
  DSH_SYSTEM_PROMPT_META,
  HOST_SERVICES_CAPABILITY,
  HOST_SERVICES_EXTENSION,
  HostServicesMethod,
  SYSTEM_PROMPT_META,
} from './host-services-wire.js';
export { MCP_LIMITS, type McpLimitName } from './limits.js';
export { createMcpCatalog } from './mcp-catalog.js';
export {
  createMcpConnector,
  MCP_KIND,
  type McpConnectorOptions,
  type McpEraMemory,
  type McpTransportProvider,
  mcpEntry,
} from './mcp-connector.js';
export {
  elicitationFromMcp,
  elicitationResultToMcp,
  type McpElicitationTranslation,
  type McpElicitResult,
} from './mcp-elicitation.js';
export {
  type McpCreateMessageResult,
  type McpSamplingTranslation,
  samplingRequestFromMcp,
  samplingResultToMcp,
} from './mcp-sampling.js';
export { MCP_HEADER, MessageHeaders } from './message-headers.js';
export {
  type McpServerState,
  type McpServerStatus,
  type MountedMcpServer,
  type MountMcpServerOptions,
  mountMcpServer,
} from './mount.js';
export { encodeHeaderValue } from './param-headers.js';
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
  serverOffersToolTasks,
} from './protocol.js';
export {
  type GetStreamState,
  isFailure,
  isNotification,
  isRequest,
  isResponse,
  JsonRpcErrorCode,
  type JsonRpcErrorObject,
  type JsonRpcFailure,
  type JsonRpcId,
  type JsonRpcMessage,
  type JsonRpcNotification,
  type JsonRpcRequest,
  type JsonRpcResponse,
  type JsonRpcSuccess,
  parseJsonRpcMessage,
  type Transport,
  type TransportDiagnostics,
  type TransportFactory,
  type TransportKind,
  type TransportSendOptions,
} from './transport.js';
export type { UrlOpener } from './url-elicitation.js';

/**
 * @clat/adapter-mcp: the MCP core of CLAT. The JSON-RPC messages and the Transport port every MCP
 * transport implements, the mcp.json schema, the MCP limits, the host-request translators
 * (sampling, elicitation, host-service errors), and the transport-independent client (both
 * protocol eras, server requests, host services, tool and prompt mounting).
 * @module
 */
/** @public what McpClient.callTool returns */
export type { McpCallToolResult } from './call-result.js';
export {
  /** @public the options parameter of McpClient.callTool */
  type McpCallOptions,
  McpClient,
  /** @public the constructor parameter of McpClient */
  type McpClientOptions,
  /** @public what McpClient lists as prompts */
  type McpPromptDescriptor,
  /** @public McpClient's `serverInfo` */
  type McpServerInfo,
  /** @public what McpClient lists as tools */
  type McpToolDescriptor,
} from './client.js';
export {
  describeServerConfig,
  type HttpServerConfig,
  /** @public an mcp.json HTTP entry as zod, for hosts with their own config files (README) */
  HttpServerConfigSchema,
  type McpServerConfig,
  OAUTH_SCOPE_TOKEN,
  type ParsedMcpConfig,
  parseMcpConfig,
  parseServerEntry,
  relativePathNote,
  relativePathWord,
  type ServerOrigin,
  /** @public an mcp.json stdio entry (McpServerConfig) */
  type StdioServerConfig,
  /** @public an mcp.json stdio entry as zod, for hosts with their own config files (README) */
  StdioServerConfigSchema,
} from './config.js';
export {
  environmentValue,
  expandServerVariables,
  literalReferences,
  /** @public the context parameter of expandServerVariables */
  type VariableContext,
} from './config-variables.js';
/** @public the MCP core's error class, its guard and the codes callers switch on (README) */
export {
  findInCauses,
  isMcpError,
  McpError,
  McpErrorCode,
  type McpErrorOptions,
} from './errors.js';
export {
  DSH_SYSTEM_PROMPT_META,
  HOST_SERVICES_CAPABILITY,
  HOST_SERVICES_EXTENSION,
  HostServicesMethod,
  SYSTEM_PROMPT_META,
} from './host-services-wire.js';
export { headerProblem } from './http-url.js';
export {
  MCP_LIMITS,
  /** @public a key of MCP_LIMITS */
  type McpLimitName,
} from './limits.js';
/** @public a connected McpClient's prompts and resources as a kernel PluginCatalog (README) */
export { createMcpCatalog } from './mcp-catalog.js';
export {
  createMcpConnector,
  MCP_KIND,
  /** @public the parameter of createMcpConnector */
  type McpConnectorOptions,
  /** @public McpConnectorOptions' `eras` (the era a server answered last time) */
  type McpEraMemory,
  type McpTransportProvider,
  mcpEntry,
} from './mcp-connector.js';
export { MCP_HEADER, MessageHeaders } from './message-headers.js';
export {
  type McpServerState,
  type McpServerStatus,
  type MountedMcpServer,
  /** @public the parameter of mountMcpServer */
  type MountMcpServerOptions,
  mountMcpServer,
} from './mount.js';
export {
  /** @public the protocol versions the client speaks, for servers that negotiate with it */
  LATEST_LEGACY_PROTOCOL_VERSION,
  /** @public the protocol versions the client speaks, for servers that negotiate with it */
  LEGACY_PROTOCOL_VERSIONS,
  /** @public the `clientInfo` option of McpConnectorOptions and McpClientOptions */
  type McpClientInfo,
  /** @public McpClient's `era` */
  type McpEra,
  type McpTimeouts,
  /** @public the protocol versions the client speaks, for servers that negotiate with it */
  MODERN_PROTOCOL_VERSION,
} from './protocol.js';
export {
  type GetStreamState,
  /** @public the JSON-RPC guard beside isRequest/isResponse/isNotification (README) */
  isFailure,
  isNotification,
  isRequest,
  isResponse,
  isSessionExpired,
  JsonRpcErrorCode,
  /** @public JsonRpcFailure's `error` */
  type JsonRpcErrorObject,
  /** @public a member of JsonRpcResponse (isFailure) */
  type JsonRpcFailure,
  type JsonRpcId,
  type JsonRpcMessage,
  /** @public a member of JsonRpcMessage (isNotification) */
  type JsonRpcNotification,
  type JsonRpcRequest,
  type JsonRpcResponse,
  /** @public a member of JsonRpcResponse */
  type JsonRpcSuccess,
  parseJsonRpcMessage,
  type Transport,
  type TransportDiagnostics,
  type TransportFactory,
  /** @public a Transport's `kind` */
  type TransportKind,
  type TransportSendOptions,
} from './transport.js';
/** @public McpClientOptions' `openUrl` (URL elicitation) */
export type { UrlOpener } from './url-elicitation.js';

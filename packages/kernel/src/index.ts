/**
 * @clat/kernel: the host-services contract, registries, permissions, cancellation, run events and
 * scopes of CLAT's plugin host. Runtime-neutral: no Node built-ins.
 * @module
 */
export { CancelToken, abortable, cancelledError, delay, withDeadline } from './cancel.js';
export {
  type ConfigIssue,
  type HttpServerConfig,
  HttpServerConfigSchema,
  type McpServerConfig,
  type ParsedMcpConfig,
  type ServerOrigin,
  type StdioServerConfig,
  StdioServerConfigSchema,
  describeServerConfig,
  formatZodIssues,
  parseMcpConfig,
  parseServerEntry,
} from './config.js';
export {
  DSH_SYSTEM_PROMPT_META,
  HOST_SERVICES_CAPABILITY,
  HOST_SERVICES_EXTENSION,
  HOST_SERVICES_VERSION,
  type HostCaller,
  type HostContextSnapshot,
  HostContextSnapshotSchema,
  type HostServices,
  HostServicesMethod,
  type HostToolCallParams,
  HostToolCallParamsSchema,
  HostToolCallResultSchema,
  NATIVE_HOST_TOOLS,
  type NativeHostTool,
  SYSTEM_PROMPT_META,
  isNativeHostTool,
} from './contract/host-services.js';
export {
  type ContractFunction,
  type ContractInterface,
  EffectSchema,
  type ElicitationField,
  ElicitationFieldSchema,
  type ElicitationForm,
  ElicitationFormSchema,
  type ElicitationOutcome,
  ElicitationOutcomeSchema,
  type ElicitationValue,
  ElicitationValueSchema,
  FieldKindSchema,
  PLUGIN_CONTRACT,
  PLUGIN_WORLD,
  type SamplingMessage,
  SamplingMessageSchema,
  type SamplingOutcome,
  SamplingOutcomeSchema,
  type SamplingRequest,
  SamplingRequestSchema,
  SamplingRoleSchema,
  ToolDefinitionSchema,
  type ToolDefinitionWire,
  pluginContractJsonSchema,
  witResult,
} from './contract/plugin-contract.js';
export {
  type WitDocument,
  type WitFunction,
  type WitInterface,
  type WitType,
  type WitTypeDef,
  parseWit,
  witToCamel,
} from './contract/wit.js';
export {
  DEFAULT_PERMISSION_MODE,
  EFFECTS,
  type Effect,
  MODE_TABLE,
  PERMISSION_MODES,
  type PermissionDecision,
  type PermissionMode,
  type ToolAnnotationHints,
  decide,
  effectFromAnnotations,
  isEffect,
  isPermissionMode,
} from './effects.js';
export { KernelError, KernelErrorCode, type KernelErrorOptions, errorMessage, isKernelError } from './errors.js';
export { type RunEvent, type RunEventOf, RunEventStream, type RunEventType, type ToolSourceRef } from './events.js';
export { type JsonObject, type JsonPrimitive, type JsonValue, isJsonObject, utf8Length } from './json.js';
export { LIMITS, type LimitName } from './limits.js';
export { fnv1a64, normalizeNameSegment, qualifyToolName } from './naming.js';
export {
  type PermissionCheck,
  type PipelineCallOptions,
  type RunContext,
  ToolPipeline,
  checkPermission,
} from './pipeline.js';
export type {
  ApprovalDecision,
  ApprovalRequest,
  Approver,
  ModelMessage,
  ModelProvider,
  ModelRequest,
  ModelResponse,
  UserAnswer,
  UserAsker,
  UserQuestion,
  UserQuestionOption,
} from './ports.js';
export { type PromptContribution, PromptRegistry } from './prompt-registry.js';
export { LineTail, REDACTED, Redactor, redactSecrets } from './redact.js';
export { type Lease, Scope, type ScopeKind, type ScopeOptions, createGlobalScope } from './scope.js';
export {
  NamedRegistry,
  type RegistryDiagnostic,
  type Tool,
  type ToolCallContext,
  type ToolDefinition,
  ToolRegistry,
  type ToolResult,
} from './tool-registry.js';
export {
  type JsonRpcErrorObject,
  JsonRpcErrorCode,
  type JsonRpcFailure,
  type JsonRpcId,
  type JsonRpcMessage,
  type JsonRpcNotification,
  type JsonRpcRequest,
  type JsonRpcResponse,
  type JsonRpcSuccess,
  type Transport,
  type TransportDiagnostics,
  type TransportFactory,
  type TransportKind,
  isFailure,
  isNotification,
  isRequest,
  isResponse,
  parseJsonRpcMessage,
} from './transport.js';

/**
 * @clat/kernel: the host-services contract, registries, permissions, cancellation, run events and
 * scopes of CLAT's plugin host. Runtime-neutral: no Node built-ins.
 * @module
 */

export type {
  BridgeElicitOptions,
  BridgeRun,
  BridgeRunOptions,
  BridgeRunUpdate,
} from './bridge/bridge-run.js';
export { boundHistory } from './bridge/context-snapshot.js';
export {
  askElicitationForm,
  CONFIRM_OPTIONS,
  type ElicitationFieldRule,
  type ElicitationFlowOptions,
  type ElicitationRules,
  SKIP_OPTION,
  validateElicitationForm,
} from './bridge/elicitation-flow.js';
export { PluginHostBridge, type PluginHostBridgeOptions } from './bridge/plugin-host-bridge.js';
export {
  type CheckedSamplingPayload,
  checkSamplingPayload,
  countChars,
  SamplingBudget,
  type SamplingReservation,
  type SamplingUsage,
} from './bridge/sampling-gates.js';
export { abortable, CancelToken, cancelledError, delay, onAbort, withDeadline } from './cancel.js';
export { type ConfigIssue, formatZodIssues } from './config-issues.js';
export {
  HOST_SERVICES_VERSION,
  type HostCaller,
  type HostContextSnapshot,
  HostContextSnapshotSchema,
  type HostServices,
  type HostToolCallParams,
  HostToolCallParamsSchema,
  HostToolCallResultSchema,
  isNativeHostTool,
  NATIVE_HOST_TOOLS,
  type NativeHostTool,
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
  pluginContractJsonSchema,
  type SamplingMessage,
  SamplingMessageSchema,
  type SamplingOutcome,
  SamplingOutcomeSchema,
  type SamplingRequest,
  SamplingRequestSchema,
  SamplingRoleSchema,
  ToolDefinitionSchema,
  type ToolDefinitionWire,
  witResult,
} from './contract/plugin-contract.js';
export {
  parseWit,
  type WitDocument,
  type WitFunction,
  type WitInterface,
  type WitType,
  type WitTypeDef,
  witToCamel,
} from './contract/wit.js';
export {
  DEFAULT_PERMISSION_MODE,
  decide,
  EFFECTS,
  type Effect,
  effectFromAnnotations,
  isEffect,
  isPermissionMode,
  MODE_TABLE,
  PERMISSION_MODES,
  type PermissionDecision,
  type PermissionMode,
  type ToolAnnotationHints,
} from './effects.js';
export {
  ClatError,
  type ClatErrorOptions,
  clatErrorGuard,
  describeClatError,
  errorMessage,
  isClatError,
  isKernelError,
  KernelError,
  KernelErrorCode,
  type KernelErrorOptions,
} from './errors.js';
export {
  type RunEvent,
  type RunEventOf,
  RunEventStream,
  type RunEventType,
  type ToolSourceRef,
} from './events.js';
export type {
  CatalogContent,
  CatalogMessage,
  CatalogPrompt,
  CatalogPromptArgument,
  CatalogResource,
  CatalogResourceTemplate,
  PluginCatalog,
  RenderedPrompt,
  ResourceRead,
} from './host/catalog.js';
export {
  type Connector,
  type MountContext,
  type MountDescription,
  type MountEntry,
  MountError,
  type MountedPlugin,
  type MountProgress,
  type MountReport,
  type MountReportState,
  type MountState,
} from './host/connector.js';
export {
  createHost,
  type Host,
  type HostOptions,
  type HostRun,
  type HostRunOptions,
} from './host/create-host.js';
export {
  type CollectMountSourcesOptions,
  collectMountSources,
  type MountSource,
  type MountSourceContext,
  type MountSourceResult,
} from './host/mount-source.js';
export {
  type MountStatus,
  type MountSummary,
  PluginMount,
  type PluginMountOptions,
} from './host/plugin-mount.js';
export {
  isJsonObject,
  type JsonObject,
  type JsonPrimitive,
  type JsonValue,
  jsonDepthExceeds,
  utf8Length,
} from './json.js';
export { lazyValue } from './lazy-value.js';
export { LIMITS, type LimitName } from './limits.js';
export {
  capabilityLabels,
  MANIFEST_FILE,
  MANIFEST_LIMITS,
  type ManifestParseResult,
  manifestJsonSchema,
  normalizeSha256,
  PLUGIN_ID_PATTERN,
  type PluginCapabilities,
  PluginCapabilitiesSchema,
  type PluginManifest,
  type PluginManifestInput,
  PluginManifestSchema,
  type PluginRuntimeKind,
  type PluginUserConfigField,
  parseManifest,
  parseSha256,
  relativePathProblem,
  USER_CONFIG_KEY_PATTERN,
} from './manifest.js';
export { fnv1a64, normalizeNameSegment, qualifyToolName } from './naming.js';
export {
  checkPermission,
  type PermissionCheck,
  type PipelineCallOptions,
  type RunContext,
  ToolPipeline,
} from './pipeline.js';
export type {
  ApprovalDecision,
  ApprovalRequest,
  Approver,
  FormAnswer,
  FormQuestion,
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
export { LineTail, REDACTED, Redactor, redactArgs, redactSecrets } from './redact.js';
export {
  createGlobalScope,
  type Lease,
  Scope,
  type ScopeKind,
  type ScopeOptions,
} from './scope.js';
export { sensitiveConfigValues, sensitiveKeys } from './sensitive-config.js';
export { sanitizeTerminalLine, sanitizeTerminalText } from './terminal-text.js';
export {
  type AudioContentBlock,
  base64DecodedBytes,
  contentBlockBytes,
  contentBlockLabel,
  type EmbeddedResourceBlock,
  formatByteSize,
  type ImageContentBlock,
  type ResourceLinkBlock,
  renderToolContent,
  type TextContentBlock,
  type ToolContentBlock,
} from './tool-content.js';
export {
  NamedRegistry,
  type RegistryDiagnostic,
  type Tool,
  type ToolCallContext,
  type ToolDefinition,
  type ToolProgress,
  ToolRegistry,
  type ToolResult,
  type ToolRun,
} from './tool-registry.js';

/**
 * @clat/kernel: the host-services contract, registries, permissions, cancellation, run events and
 * scopes of CLAT's plugin host. Runtime-neutral: no Node built-ins.
 * @module
 */

export type {
  /** @public the options parameter of PluginHostBridge's elicit */
  BridgeElicitOptions,
  BridgeRun,
  BridgeRunOptions,
  /** @public the parameter of BridgeRun.update */
  BridgeRunUpdate,
} from './bridge/bridge-run.js';
export type {
  ElicitationFieldRule,
  /** @public BridgeElicitOptions' `rules` */
  ElicitationRules,
} from './bridge/elicitation-flow.js';
export {
  PluginHostBridge,
  /** @public the constructor parameter of PluginHostBridge */
  type PluginHostBridgeOptions,
} from './bridge/plugin-host-bridge.js';
/** @public what BridgeRun.usage returns */
export type { SamplingUsage } from './bridge/sampling-gates.js';
export {
  /** @public cancellation helper beside withDeadline/onAbort (README "Cancellation") */
  abortable,
  /** @public the one abort a run fans out (README "Cancellation") */
  CancelToken,
  cancelledError,
  delay,
  onAbort,
  withDeadline,
} from './cancel.js';
export { type ConfigIssue, formatZodIssues } from './config-issues.js';
export {
  HOST_SERVICES_VERSION,
  type HostCaller,
  type HostContextSnapshot,
  /** @public the host-services contract as zod (README "The plugin contract") */
  HostContextSnapshotSchema,
  type HostServices,
  /** @public the parameter of HostServices.callTool */
  type HostToolCallParams,
  HostToolCallParamsSchema,
  /** @public the host-services contract as zod (README "The plugin contract") */
  HostToolCallResultSchema,
  isNativeHostTool,
  NATIVE_HOST_TOOLS,
  /** @public an element of NATIVE_HOST_TOOLS */
  type NativeHostTool,
} from './contract/host-services.js';
// The clat:plugin contract as data: zod schemas in jco's value shape, one per WIT type, and the
// interfaces and world they form (README "The plugin contract").
export {
  /** @public the shape of PLUGIN_CONTRACT's functions */
  type ContractFunction,
  /** @public the shape of PLUGIN_CONTRACT's interfaces */
  type ContractInterface,
  /** @public the plugin contract as zod */
  EffectSchema,
  type ElicitationField,
  /** @public the plugin contract as zod */
  ElicitationFieldSchema,
  type ElicitationForm,
  /** @public the plugin contract as zod */
  ElicitationFormSchema,
  type ElicitationOutcome,
  /** @public the plugin contract as zod */
  ElicitationOutcomeSchema,
  type ElicitationValue,
  /** @public the plugin contract as zod */
  ElicitationValueSchema,
  /** @public the plugin contract as zod */
  FieldKindSchema,
  /** @public the plugin contract's interfaces and functions as zod */
  PLUGIN_CONTRACT,
  /** @public the plugin contract's world: package, imports, exports */
  PLUGIN_WORLD,
  pluginContractJsonSchema,
  /** @public an element of SamplingRequest's `messages` */
  type SamplingMessage,
  /** @public the plugin contract as zod */
  SamplingMessageSchema,
  type SamplingOutcome,
  /** @public the plugin contract as zod */
  SamplingOutcomeSchema,
  type SamplingRequest,
  /** @public the plugin contract as zod */
  SamplingRequestSchema,
  /** @public the plugin contract as zod */
  SamplingRoleSchema,
  /** @public the plugin contract as zod */
  ToolDefinitionSchema,
  /** @public a tool definition as a plugin sends it (ToolDefinitionSchema) */
  type ToolDefinitionWire,
} from './contract/plugin-contract.js';
export {
  DEFAULT_PERMISSION_MODE,
  decide,
  EFFECTS,
  type Effect,
  effectFromAnnotations,
  isEffect,
  isPermissionMode,
  /** @public the mode table as data, `MODE_TABLE[mode][effect]` (README "Effects") */
  MODE_TABLE,
  PERMISSION_MODES,
  type PermissionDecision,
  type PermissionMode,
  /** @public the parameter of effectFromAnnotations */
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
  /** @public the options parameter of KernelError */
  type KernelErrorOptions,
} from './errors.js';
export {
  type RunEvent,
  type RunEventOf,
  RunEventStream,
  /** @public the type parameter of RunEventStream.onType */
  type RunEventType,
  type ToolSourceRef,
} from './events.js';
export { blobText } from './host/blob-text.js';
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
  type MountLogEntry,
  type MountProgress,
  type MountReport,
  type MountReportState,
  /** @public MountProgress's `roots` */
  type MountRoots,
  /** @public MountStatus's `state` */
  type MountState,
} from './host/connector.js';
export {
  createHost,
  type Host,
  /** @public the parameter of createHost */
  type HostOptions,
  type HostRun,
  /** @public the parameter of Host.beginRun */
  type HostRunOptions,
} from './host/create-host.js';
export {
  /** @public the options parameter of collectMountSources */
  type CollectMountSourcesOptions,
  collectMountSources,
  type MountSource,
  /** @public the parameter of MountSource.collect */
  type MountSourceContext,
  /** @public what MountSource.collect returns */
  type MountSourceResult,
} from './host/mount-source.js';
export {
  type MountStatus,
  type MountSummary,
  PluginMount,
  /** @public the constructor parameter of PluginMount */
  type PluginMountOptions,
} from './host/plugin-mount.js';
export {
  /** @public the parameter of createResourceTools */
  type CatalogDirectory,
  createResourceTools,
  /** @public the parameter of HostOptions.hostTools */
  type HostToolsContext,
  RESOURCE_TOOL_NAMES,
  /** @public the structured output of list_resources */
  type ResourceListing,
  /** @public one server of ResourceListing */
  type ResourceListingServer,
} from './host/resource-tools.js';
export {
  isJsonObject,
  type JsonObject,
  /** @public a leaf of JsonValue */
  type JsonPrimitive,
  type JsonValue,
  jsonDepthExceeds,
  utf8Length,
} from './json.js';
export { describeJsonSyntaxError } from './json-syntax-error.js';
export { lazyValue } from './lazy-value.js';
export {
  LIMITS,
  /** @public a key of LIMITS */
  type LimitName,
} from './limits.js';
export {
  capabilityLabels,
  MANIFEST_FILE,
  MANIFEST_LIMITS,
  /** @public what parseManifest returns */
  type ManifestParseResult,
  /** @public the JSON Schema of clat-plugin.json, also shipped as schemas/ */
  manifestJsonSchema,
  PLUGIN_ID_PATTERN,
  type PluginCapabilities,
  PluginCapabilitiesSchema,
  type PluginManifest,
  type PluginManifestInput,
  PluginManifestSchema,
  /** @public PluginManifest's `runtime.kind` */
  type PluginRuntimeKind,
  type PluginUserConfigField,
  parseManifest,
  parseSha256,
  relativePathProblem,
  USER_CONFIG_KEY_PATTERN,
} from './manifest.js';
export { normalizeNameSegment, qualifyToolName } from './naming.js';
export {
  /** @public the options parameter of ToolPipeline.call */
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
  /** @public an element of ModelRequest's `messages` */
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
export { isSecretName, LineTail, Redactor, redactArgs, redactSecrets } from './redact.js';
export {
  createGlobalScope,
  type Lease,
  Scope,
  /** @public Scope's `kind` */
  type ScopeKind,
  /** @public the options parameter of createGlobalScope and Scope.child */
  type ScopeOptions,
} from './scope.js';
export { sensitiveConfigValues, sensitiveKeys } from './sensitive-config.js';
export { shellWord } from './shell-word.js';
export { hideCredentialSegments, shownUrl } from './shown-url.js';
export { stderrHeadline, stderrSummary } from './stderr-summary.js';
export { sanitizeTerminalLine, sanitizeTerminalText } from './terminal-text.js';
export {
  /** @public a member of ToolContentBlock */
  type AudioContentBlock,
  contentBlockBytes,
  /** @public a member of ToolContentBlock */
  type EmbeddedResourceBlock,
  /** @public a member of ToolContentBlock */
  type ImageContentBlock,
  /** @public a member of ToolContentBlock */
  type ResourceLinkBlock,
  renderToolContent,
  /** @public a member of ToolContentBlock */
  type TextContentBlock,
  type ToolContentBlock,
} from './tool-content.js';
export {
  /** @public the base of ToolRegistry and PromptRegistry (README "Registries") */
  NamedRegistry,
  /** @public what a registry's diagnostics() returns */
  type RegistryDiagnostic,
  type Tool,
  type ToolCallContext,
  type ToolDefinition,
  type ToolProgress,
  ToolRegistry,
  type ToolResult,
  /** @public ToolCallContext's `run` */
  type ToolRun,
} from './tool-registry.js';

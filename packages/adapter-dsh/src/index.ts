/**
 * @clat/adapter-dsh: serves DSH (Cordis-style) plugins as dual-era MCP stdio servers with CLAT's
 * host-services extension, and the `clat-dsh` author tooling (inspect, test, package).
 * @module
 */

export {
  type DshLogger,
  type DshPluginContext,
  SUPPORTED_SERVICES,
  type SupportedService,
} from './dsh-context.js';
export { DshAdapterError, DshErrorCode, describeError, isDshAdapterError } from './errors.js';
export {
  annotationsForHint,
  type DshToolDefinition,
  defineTool,
  TOOL_HINTS,
  type ToolAnnotations,
  type ToolHint,
  type ToolRunContext,
  type ToolSpec,
} from './seams/tools.js';
export {
  type ClatServerHandle,
  DSH_PROMPT_NAME,
  RUNTIME_CONTEXT_META,
  type ServeClatOptions,
  type ServedToolSummary,
  serveClat,
} from './serve-clat.js';
export {
  configFromEnv,
  PLUGIN_CONFIG_ENV,
  reserveStdoutForProtocol,
  type ServeProcessOptions,
  servePluginProcess,
} from './serve-process.js';

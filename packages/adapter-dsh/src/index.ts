/**
 * @clat/adapter-dsh: serves DSH (Cordis-style) plugins as dual-era MCP stdio servers with CLAT's
 * host-services extension, and the `clat-dsh` author tooling (inspect, test, package).
 * @module
 */

export {
  /** @public the logger a plugin receives (`ctx.logger`) */
  type DshLogger,
  type DshPluginContext,
  /** @public the services a DSH plugin may `inject` (README "Exports") */
  SUPPORTED_SERVICES,
  /** @public an element of SUPPORTED_SERVICES */
  type SupportedService,
} from './dsh-context.js';
/** @public the adapter's error class, its codes and one-line rendering (README "Exports") */
export { DshAdapterError, DshErrorCode, describeError, isDshAdapterError } from './errors.js';
export {
  /** @public effect hints to MCP tool annotations, for authors of DSH tools (README "Exports") */
  annotationsForHint,
  /** @public what defineTool returns */
  type DshToolDefinition,
  defineTool,
  /** @public the effect hints a DSH tool may declare (README "Exports") */
  TOOL_HINTS,
  /** @public the MCP annotations annotationsForHint returns */
  type ToolAnnotations,
  /** @public an element of TOOL_HINTS */
  type ToolHint,
  /** @public what a DSH tool's run receives */
  type ToolRunContext,
  /** @public the parameter of defineTool */
  type ToolSpec,
} from './seams/tools.js';
export {
  /** @public what serveClat returns */
  type ClatServerHandle,
  /** @public the prompt name a DSH plugin's system prompt is served under (README "Exports") */
  DSH_PROMPT_NAME,
  /** @public the `_meta` key of the runtime context a tool call carries (README "Exports") */
  RUNTIME_CONTEXT_META,
  /** @public the options parameter of serveClat */
  type ServeClatOptions,
  /** @public what ClatServerHandle.listTools returns */
  type ServedToolSummary,
  /** @public serves a loaded plugin as an MCP server (README "Exports") */
  serveClat,
} from './serve-clat.js';
/** @public a packaged plugin's process entry (README "Exports") */
export {
  configFromEnv,
  PLUGIN_CONFIG_ENV,
  reserveStdoutForProtocol,
  type ServeProcessOptions,
  servePluginProcess,
} from './serve-process.js';

/**
 * @clat/wasm-guest-sdk: write CLAT WASM plugins in JavaScript or TypeScript. `definePlugin()`
 * builds the `tools` export; `host`, `sampling`, `elicitation` and `config` wrap the host imports.
 * Build with `clat-wasm-build` (componentize-js, StarlingMonkey).
 * @module
 */

export {
  config,
  /** @public a field of ElicitationForm */
  type ElicitationField,
  /** @public the parameter of elicitation.elicit */
  type ElicitationForm,
  /** @public what elicitation.elicit returns */
  type ElicitationOutcome,
  /** @public an answer in ElicitationOutcome */
  type ElicitationValue,
  elicitation,
  /** @public what host.context returns */
  type HostContext,
  /** @public what host imports throw, with the host's `code` (README) */
  HostError,
  /** @public the native tools host.callTool may name */
  type HostToolName,
  host,
  /** @public what sampling.createMessage returns */
  type SamplingOutcome,
  /** @public the parameter of sampling.createMessage */
  type SamplingRequest,
  sampling,
} from './host.js';
export {
  definePlugin,
  defineTool,
  /** @public a tool's declared effect (ToolSpec) */
  type Effect,
  /** @public turns a caught value into the string a tool error must be (README) */
  errorText,
  /** @public a tool's input schema (ToolSpec) */
  type JsonSchema,
  /** @public the parameter of definePlugin */
  type PluginSpec,
  /** @public what ToolsExport.listTools returns */
  type ToolDefinition,
  /** @public the parameter of defineTool */
  type ToolSpec,
  /** @public what definePlugin returns: the guest's `tools` export */
  type ToolsExport,
} from './plugin.js';

/**
 * @clat/wasm-guest-sdk: write CLAT WASM plugins in JavaScript or TypeScript. `definePlugin()`
 * builds the `tools` export; `host`, `sampling`, `elicitation` and `config` wrap the host imports.
 * Build with `clat-wasm-build` (componentize-js, StarlingMonkey).
 * @module
 */

export {
  config,
  type ElicitationField,
  type ElicitationForm,
  type ElicitationOutcome,
  type ElicitationValue,
  elicitation,
  type HostContext,
  HostError,
  type HostToolName,
  host,
  type SamplingOutcome,
  type SamplingRequest,
  sampling,
} from './host.js';
export {
  definePlugin,
  defineTool,
  type Effect,
  errorText,
  type JsonSchema,
  type PluginSpec,
  type ToolDefinition,
  type ToolSpec,
  type ToolsExport,
} from './plugin.js';

/**
 * @clat/adapter-wasm: runs `clat:plugin@0.1.0` WebAssembly components (transpiled by jco) in
 * sandboxed worker threads and mounts their tools in the kernel registry.
 * @module
 */

export {
  MAX_COMPONENT_BYTES,
  type PrepareComponentOptions,
  type PreparedComponent,
  prepareComponent,
  TRANSPILER_ID,
  wasmCacheDir,
} from './component-cache.js';
export {
  type CompiledComponent,
  type CompilingComponent,
  compileComponent,
} from './component-compile.js';
export { sha256Hex } from './digest.js';
export { isWasmError, WasmError, WasmErrorCode } from './errors.js';
export { GRANTS_FILE, grantsPath, type WasmGrant, WasmGrantStore } from './grants.js';
export type {
  GuestCallOutcome,
  GuestToolDefinition,
  HostImportHandler,
  JcoGuestHostOptions,
  Preopen,
} from './guest-host-contract.js';
export {
  ALLOWED_IMPORTS,
  type ComponentInterfaces,
  componentInterfaces,
  disallowedImports,
  unversionedInterface,
} from './import-policy.js';
export { JcoGuestHost } from './jco-guest-host.js';
export { capModuleMemory, type MemoryCapResult, WASM_PAGE_BYTES } from './memory-cap.js';
export {
  type MountedWasmPlugin,
  type MountWasmPluginOptions,
  mountWasmPlugin,
  WASM_PROTOCOL_MANIFEST,
  WASM_PROTOCOL_PATH,
} from './mount.js';
export {
  loadPluginsJson,
  MANIFEST_FILE,
  type ParsedPluginsJson,
  PLUGINS_FILE,
  type PluginPathOptions,
  type PluginsJsonIssue,
  parsePluginsJson,
  type ResolvedManifest,
  type ResolveManifestOptions,
  resolveManifestEntry,
  resolvePluginPath,
  type WasmCapabilities,
  type WasmPluginEntry,
} from './plugins-json.js';
export { type PluginsJsonSourceOptions, pluginsJsonSource } from './plugins-json-source.js';
export { toolResultOf } from './register-tools.js';
export {
  createWasmConnector,
  WASM_KIND,
  type WasmConnectorOptions,
  type WasmEntryConfig,
} from './wasm-connector.js';
export { PROJECT_PREOPEN } from './write-access.js';

/** @clat/cli: the `clat` command as a library, for custom distributions. @module */
export type { Command, CommandIO } from './command.js';
export { COMMANDS } from './commands/index.js';
export { type ClatHome, resolveClatHome } from './config/clat-home.js';
export { CliError, CliErrorCode, isCliError } from './errors.js';
export { main } from './main.js';
export {
  type Composition,
  defaultComposition,
  type ServerSourceContext,
  type ServerSources,
} from './project/composition.js';
export { createMcpConnector } from './project/mcp-connector.js';
export {
  type OpenedProject,
  type OpenProjectOptions,
  openProject,
} from './project/open-project.js';
export {
  type McpSummary,
  ProjectMount,
  type ProjectMountOptions,
  type ServerStatus,
} from './project/project-mount.js';
export {
  type ActiveRun,
  type NativeToolContext,
  ProjectSession,
  type ProjectSessionOptions,
  type RunOptions,
} from './project/project-session.js';
export {
  type MountEntry,
  type MountedServer,
  type ServerConnector,
  ServerMountError,
  type ServerMountRequest,
  type ServerProgress,
  type ServerState,
  type WasmMountEntry,
} from './project/server-connector.js';
export { createWasmConnector } from './project/wasm-connector.js';
export {
  AGENT_MAX_STEPS,
  type AgentTurnOptions,
  type AgentTurnResult,
  runAgentTurn,
} from './run/agent-loop.js';
export { formatMcpStatus, mcpStatusJson, summaryLine } from './ui/mcp-status.js';
export { CLAT_VERSION } from './version.js';

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
} from './project/composition.js';
export {
  type OpenedProject,
  type OpenProjectOptions,
  openProject,
} from './project/open-project.js';
export {
  AGENT_MAX_STEPS,
  type AgentTurnOptions,
  type AgentTurnResult,
  runAgentTurn,
} from './run/agent-loop.js';
export { formatMcpStatus, mcpStatusJson, summaryLine } from './ui/mcp-status.js';
export { CLAT_VERSION } from './version.js';

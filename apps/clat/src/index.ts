/** @clat/cli: the `clat` command as a library, for custom distributions. @module */
export type {
  /** @public the io parameter of main and openProject */
  CommandIO,
} from './command.js';
export {
  /** @public what resolveClatHome returns */
  type ClatHome,
  resolveClatHome,
} from './config/clat-home.js';
/** @public the CLI's error class, its guard and the codes callers switch on (README) */
export { CliError, CliErrorCode, isCliError } from './errors.js';
/** @public runs the `clat` command in-process (README "As a library") */
export { main } from './main.js';
export {
  /** @public what defaultComposition returns and openProject accepts */
  type Composition,
  defaultComposition,
  /** @public the parameter of Composition.sources */
  type ServerSourceContext,
} from './project/composition.js';
export {
  /** @public what openProject returns */
  type OpenedProject,
  /** @public the options parameter of openProject */
  type OpenProjectOptions,
  /** @public opens a trusted project as a host (README "As a library") */
  openProject,
} from './project/open-project.js';
/** @public one agent turn over a host, for other front ends (README "As a library") */
export { type AgentTurnOptions, type AgentTurnResult, runAgentTurn } from './run/agent-loop.js';
export {
  formatMcpStatus,
  /** @public the `/mcp --json` shape (README "As a library") */
  mcpStatusJson,
} from './ui/mcp-status.js';
/** @public the CLI's version (README "As a library") */
export { CLAT_VERSION } from './version.js';

/**
 * The `clat` subcommands as main() sees them: name and summary for `--help`, and the module to
 * load for the one that runs, so `clat tools` never imports the plugin store or the chat UI.
 * Same order and text as COMMANDS (commands/index.ts); catalog.test.ts keeps them equal.
 * @module
 */
import type { Command } from '../command.js';

export interface CommandEntry {
  name: string;
  /** One line for `clat --help`. */
  summary: string;
  load(): Promise<Command>;
}

export const COMMAND_CATALOG: readonly CommandEntry[] = [
  {
    name: 'chat',
    summary: 'Interactive session (the default when clat runs on a terminal)',
    load: async () => (await import('./chat.js')).chatCommand,
  },
  {
    name: 'exec',
    summary: 'Run one headless agent turn with the configured model',
    load: async () => (await import('./exec.js')).execCommand,
  },
  {
    name: 'mcp',
    summary: 'Show MCP server status; add, remove, list or get mcp.json entries',
    load: async () => (await import('./mcp.js')).mcpCommand,
  },
  {
    name: 'tools',
    summary: 'List the registered tools (native, MCP, WASM) with effects and signatures',
    load: async () => (await import('./tools.js')).toolsCommand,
  },
  {
    name: 'call',
    summary: 'Call one tool through the permission pipeline',
    load: async () => (await import('./call.js')).callCommand,
  },
  {
    name: 'prompts',
    summary: 'List server prompts (session slash commands) or render one',
    load: async () => (await import('./prompts.js')).promptsCommand,
  },
  {
    name: 'resources',
    summary: 'List server resources and templates, or read one',
    load: async () => (await import('./resources.js')).resourcesCommand,
  },
  {
    name: 'trust',
    summary: 'Trust a project so its MCP servers may start (--remove, --list)',
    load: async () => (await import('./trust.js')).trustCommand,
  },
  {
    name: 'plugin',
    summary: 'Manage installed plugin packages (inspect, install, update, list, pack, ...)',
    load: async () => (await import('./plugin.js')).pluginCommand,
  },
  {
    name: 'approvals',
    summary: 'List or reset the approvals saved per project',
    load: async () => (await import('./approvals.js')).approvalsCommand,
  },
  {
    name: 'completion',
    summary: 'Print a shell completion script (bash, zsh, fish)',
    load: async () => (await import('./completion.js')).completionCommand,
  },
];

/** Every `clat` subcommand, in help order. Add one import and one entry per command. @module */
import type { Command } from '../command.js';
import { approvalsCommand } from './approvals.js';
import { callCommand } from './call.js';
import { chatCommand } from './chat.js';
import { completionCommand } from './completion.js';
import { execCommand } from './exec.js';
import { mcpCommand } from './mcp.js';
import { pluginCommand } from './plugin.js';
import { promptsCommand } from './prompts.js';
import { resourcesCommand } from './resources.js';
import { toolsCommand } from './tools.js';
import { trustCommand } from './trust.js';

export const COMMANDS: readonly Command[] = [
  chatCommand,
  execCommand,
  mcpCommand,
  toolsCommand,
  callCommand,
  promptsCommand,
  resourcesCommand,
  trustCommand,
  pluginCommand,
  approvalsCommand,
  completionCommand,
];

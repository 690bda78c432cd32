/**
 * What the host tells the native tools about the project and the active run.
 * @module
 */
import type { ToolCallContext, UserAsker } from '@clat/kernel';
import type { ProjectFence } from './project-fence.js';

export interface NativeToolsOptions {
  /** Absolute project root; run_command runs here and the path fence is drawn around it. */
  projectRoot: string;
  /** The active run's question frontend for ask_user; undefined when headless. */
  asker?: (ctx: ToolCallContext) => UserAsker | undefined;
  /**
   * Whether a model call may write an absolute path outside the project (Full Access). Plugin
   * calls never may. Default: never.
   */
  allowAbsoluteWrites?: (ctx: ToolCallContext) => boolean;
  /** Environment of run_command (default: this process's). */
  env?: Record<string, string | undefined>;
  /** Shell of run_command (default: /bin/sh). */
  shell?: string;
}

export interface ToolEnv {
  fence: ProjectFence;
  options: NativeToolsOptions;
}

/** The stricter plugin fence applies when a plugin, not the model, asked for the call. */
export function isPluginCall(ctx: ToolCallContext): boolean {
  return ctx.requestedBy !== undefined;
}

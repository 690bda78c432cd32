/**
 * What the host tells the native tools about the project (the run comes with each call).
 * @module
 */
import type { ToolCallContext } from '@clat/kernel';
import type { ProjectFence } from './project-fence.js';

export interface NativeToolsOptions {
  /** Absolute project root; run_command runs here and the path fence is drawn around it. */
  projectRoot: string;
  /** Environment of run_command (default: this process's). */
  env?: Record<string, string | undefined>;
  /** Shell of run_command (default: /bin/sh). */
  shell?: string;
}

export interface ToolEnv {
  fence: ProjectFence;
  options: NativeToolsOptions;
}

/**
 * Whether a call may write an absolute path outside the project: only a model call in a Full
 * Access run; plugin calls never may.
 */
export function allowsAbsoluteWrites(ctx: ToolCallContext): boolean {
  return ctx.requestedBy === undefined && ctx.run.mode === 'full-access';
}

/** The stricter plugin fence applies when a plugin, not the model, asked for the call. */
export function isPluginCall(ctx: ToolCallContext): boolean {
  return ctx.requestedBy !== undefined;
}

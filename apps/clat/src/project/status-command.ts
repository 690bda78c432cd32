/**
 * The `clat mcp` a message sends a person to: with the project flags of the run that shows it,
 * since a bare `clat mcp` would look at another directory (`-C`) or refuse a project trusted only
 * for this run (`--trust`).
 * @module
 */
import { shellWord } from '../ui/shell-word.js';

export interface ProjectFlagsShown {
  project?: string | undefined;
  trust?: boolean | undefined;
}

/** `clat mcp`, plus `-C <dir>` and `--trust` when this run was given them. */
export function mcpStatusCommand(flags: ProjectFlagsShown): string {
  const words = ['clat mcp'];
  if (flags.project !== undefined) words.push('-C', shellWord(flags.project));
  if (flags.trust === true) words.push('--trust');
  return words.join(' ');
}

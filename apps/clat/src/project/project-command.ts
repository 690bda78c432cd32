/**
 * A `clat` command a message sends a person to, with the project flags of the run that shows it:
 * without them the command would look at another directory (`-C`) or refuse a project trusted
 * only for this run (`--trust`).
 * @module
 */
import { shellWord } from '@clat/kernel';

export interface ProjectFlagsShown {
  project?: string | undefined;
  trust?: boolean | undefined;
}

/** `clat <words…>` (each a shell word), plus `-C <dir>` and `--trust` when this run had them. */
export function projectCommand(words: readonly string[], flags: ProjectFlagsShown): string {
  const command = ['clat', ...words.map(shellWord)];
  if (flags.project !== undefined) command.push('-C', shellWord(flags.project));
  if (flags.trust === true) command.push('--trust');
  return command.join(' ');
}

/** The `clat mcp` that shows why a server is missing, for this run's project. */
export function mcpStatusCommand(flags: ProjectFlagsShown): string {
  return projectCommand(['mcp'], flags);
}

/**
 * `clat <words…> <operand>` with this run's project flags; an operand that starts with "-" (a
 * server named `-x`) would read as an option, so it goes last, after `--`.
 */
export function operandCommand(
  words: readonly string[],
  operand: string,
  flags: ProjectFlagsShown = {},
): string {
  return operand.startsWith('-')
    ? `${projectCommand(words, flags)} -- ${shellWord(operand)}`
    : projectCommand([...words, operand], flags);
}

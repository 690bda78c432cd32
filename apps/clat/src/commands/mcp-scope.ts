/**
 * Which mcp.json `clat mcp add|remove|enable|disable` edit: `--scope user` (the default), the
 * CLAT home's `mcp.json`, whose servers start in every trusted project; or `--scope project`,
 * the project's own `.clat/mcp.json` (the project around the current directory, or `-C <dir>`'s,
 * found as every command finds it), read only in that project once it is trusted, and often
 * committed with it, as Claude Code's and Gemini CLI's project scope.
 * @module
 */

import { basename, dirname, join } from 'node:path';
import type { CommandIO } from '../command.js';
import { type ClatHome, projectMcpFile, resolveClatHome } from '../config/clat-home.js';
import { realOrSelf } from '../config/project-root.js';
import { isTrusted, projectRootOf } from '../config/trust-store.js';
import { CliError, CliErrorCode } from '../errors.js';

export const SCOPE_OPTIONS = {
  // `-s`, as Claude Code's and Gemini CLI's `mcp add -s project` take it.
  scope: { type: 'string', short: 's' },
  project: { type: 'string', short: 'C' },
} as const;

const SCOPES = ['user', 'project'] as const;
type Scope = (typeof SCOPES)[number];

function isScope(value: string): value is Scope {
  return (SCOPES as readonly string[]).includes(value);
}

export interface EditTarget {
  scope: Scope;
  /** The mcp.json to edit. */
  file: string;
  home: ClatHome;
  /** The project root (project scope only). */
  root?: string;
}

/** The file `clat mcp <sub>` edits, from `--scope` and `-C`. */
export async function editTarget(
  sub: string,
  values: { scope?: string | undefined; project?: string | undefined },
  io: CommandIO,
): Promise<EditTarget> {
  const scope = values.scope ?? 'user';
  if (scope === 'local') {
    // Claude Code's default scope: one project, only this person. CLAT keeps no per-project
    // entries of the person's own; say which of its two scopes comes closest, and how.
    throw new CliError(
      CliErrorCode.CLI_USAGE,
      `clat mcp ${sub}: CLAT has no local scope (Claude Code's: one project, only you); --scope user (the default) edits ~/.clat/mcp.json, whose servers start in every trusted project, and --scope project the project's own .clat/mcp.json`,
    );
  }
  if (!isScope(scope)) {
    throw new CliError(
      CliErrorCode.CLI_USAGE,
      `clat mcp ${sub}: --scope must be ${SCOPES.join(' or ')}, not ${JSON.stringify(scope.slice(0, 40))}`,
    );
  }
  const home = resolveClatHome(io.env, io.cwd);
  if (scope === 'user') {
    if (values.project !== undefined) {
      throw new CliError(
        CliErrorCode.CLI_USAGE,
        `clat mcp ${sub}: -C names a project, and applies only with --scope project`,
      );
    }
    return { scope, file: home.mcpFile, home };
  }
  const root = await projectRootOf(values.project ?? '.', io.cwd, home);
  const file = projectMcpFile(root);
  // In the home directory, `.clat/mcp.json` is the CLAT home's own file: the user scope's.
  if (realFile(file) === realFile(home.mcpFile)) {
    throw new CliError(
      CliErrorCode.CLI_USAGE,
      `clat mcp ${sub}: ${file} is the user's mcp.json (the CLAT home), not a project's: drop --scope project, or run it in a project (or name one with -C <dir>)`,
    );
  }
  return { scope, file, home, root };
}

/** The file's real path through its directory (the file itself may not exist yet). */
function realFile(file: string): string {
  return join(realOrSelf(dirname(file)), basename(file));
}

/** Whether the project of a project-scope target is trusted (its servers start only then). */
export function targetTrusted(target: EditTarget): Promise<boolean> {
  return target.root === undefined
    ? Promise.resolve(true)
    : isTrusted(target.home.trustFile, target.root);
}

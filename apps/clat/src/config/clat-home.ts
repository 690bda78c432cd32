/** Where CLAT keeps its per-user state: `~/.clat`, or `$CLAT_HOME` when set. @module */
import { homedir, userInfo } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';
import { CliError, CliErrorCode } from '../errors.js';

export interface ClatHome {
  /** Absolute directory. */
  dir: string;
  /** User-managed MCP servers. */
  mcpFile: string;
  /** Provider and CLI settings. */
  configFile: string;
  /** Trusted project roots. */
  trustFile: string;
  /** OAuth tokens of remote MCP servers (0700; one 0600 file per server URL). */
  oauthDir: string;
  /** Saved "always allow in this project" approvals. */
  approvalsFile: string;
}

export function resolveClatHome(env: NodeJS.ProcessEnv, cwd: string): ClatHome {
  const override = env.CLAT_HOME?.trim();
  const dir = override ? resolve(cwd, override) : join(userHome(), '.clat');
  return {
    dir,
    mcpFile: join(dir, 'mcp.json'),
    configFile: join(dir, 'config.json'),
    trustFile: join(dir, 'trust.json'),
    oauthDir: oauthDirIn(dir),
    approvalsFile: join(dir, 'approvals.json'),
  };
}

/**
 * The user's home directory: `$HOME`, or the account's (passwd) when HOME is empty or relative.
 * Never a relative path: `HOME=` would otherwise put the user's trust records and servers in
 * `./.clat`, the current project's own configuration directory.
 */
function userHome(): string {
  const home = homedir();
  if (isAbsolute(home)) return home;
  let account: string | undefined;
  try {
    account = userInfo().homedir;
  } catch {
    // No passwd entry (a container's arbitrary uid): only HOME or CLAT_HOME can say.
  }
  if (account !== undefined && isAbsolute(account)) return account;
  throw new CliError(
    CliErrorCode.CLI_CONFIG_INVALID,
    `cannot tell where your home directory is (HOME is ${home === '' ? 'empty' : JSON.stringify(home)}); set HOME, or CLAT_HOME to the directory CLAT keeps its settings in`,
  );
}

/** `<clat home>/oauth`, from the home directory alone (connectors get only that). */
export function oauthDirIn(homeDir: string): string {
  return join(homeDir, 'oauth');
}

/** The project-local server file, merged under the user's once the project is trusted. */
export function projectMcpFile(projectRoot: string): string {
  return join(projectRoot, '.clat', 'mcp.json');
}

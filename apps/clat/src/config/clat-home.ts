/** Where CLAT keeps its per-user state: `~/.clat`, or `$CLAT_HOME` when set. @module */
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';

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
  const dir = override ? resolve(cwd, override) : join(homedir(), '.clat');
  return {
    dir,
    mcpFile: join(dir, 'mcp.json'),
    configFile: join(dir, 'config.json'),
    trustFile: join(dir, 'trust.json'),
    oauthDir: oauthDirIn(dir),
    approvalsFile: join(dir, 'approvals.json'),
  };
}

/** `<clat home>/oauth`, from the home directory alone (connectors get only that). */
export function oauthDirIn(homeDir: string): string {
  return join(homeDir, 'oauth');
}

/** The project-local server file, merged under the user's once the project is trusted. */
export function projectMcpFile(projectRoot: string): string {
  return join(projectRoot, '.clat', 'mcp.json');
}

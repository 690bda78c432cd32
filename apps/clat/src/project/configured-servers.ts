/**
 * The mcp.json entries a project mounts: the user's `~/.clat/mcp.json` merged over the trusted
 * project's own `.clat/mcp.json` (the user's same-named entry wins). The mount and `clat mcp
 * login|logout` read them here, so a server `clat mcp` offers a login for is one login can find.
 * @module
 */

import type { McpServerConfig } from '@clat/adapter-mcp';
import type { ConfigIssue } from '@clat/kernel';
import { type ClatHome, projectMcpFile } from '../config/clat-home.js';
import { loadMcpConfig } from '../config/mcp-config-file.js';

export interface ConfiguredServer {
  server: McpServerConfig;
  /** The mcp.json it came from, for issues and hints. */
  file: string;
}

export interface ConfiguredServers {
  configured: ConfiguredServer[];
  issues: ConfigIssue[];
  /** Project entries replaced by the user's same-named entry. */
  notes: string[];
}

/**
 * Reads both files; the project's is read only when the caller has established trust in
 * `projectRoot` (pass undefined otherwise).
 */
export async function loadConfiguredServers(
  home: ClatHome,
  trustedProjectRoot: string | undefined,
): Promise<ConfiguredServers> {
  const mcp = await loadMcpConfig(home.mcpFile);
  const configured: ConfiguredServer[] = mcp.servers.map((server) => ({
    server,
    file: home.mcpFile,
  }));
  const issues = [...mcp.issues];
  const notes: string[] = [];
  if (trustedProjectRoot === undefined) return { configured, issues, notes };
  const projectFile = projectMcpFile(trustedProjectRoot);
  const local = await loadMcpConfig(projectFile, 'project');
  const userNames = new Set(mcp.servers.map((server) => server.name));
  for (const server of local.servers) {
    if (userNames.has(server.name)) {
      notes.push(
        `${projectFile} entry ${JSON.stringify(server.name)} is replaced by the same-named entry in ${home.mcpFile}`,
      );
    } else configured.push({ server, file: projectFile });
  }
  issues.push(...local.issues);
  return { configured, issues, notes };
}

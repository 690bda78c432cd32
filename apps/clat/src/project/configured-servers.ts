/**
 * The mcp.json entries a project mounts: the user's `~/.clat/mcp.json` merged over the trusted
 * project's own `.clat/mcp.json` (the user's same-named entry wins). The mount and `clat mcp
 * login|logout` read them here, so a server `clat mcp` offers a login for is one login can find.
 * @module
 */

import { existsSync } from 'node:fs';
import { type McpServerConfig, relativePathNote } from '@clat/adapter-mcp';
import type { ConfigIssue } from '@clat/kernel';
import { type ClatHome, projectMcpFile } from '../config/clat-home.js';
import { loadMcpConfig } from '../config/mcp-config-file.js';
import { trustAdvice } from '../config/trust-store.js';
import { didYouMean } from '../ui/did-you-mean.js';

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
    } else {
      configured.push({ server, file: projectFile });
      const relative = relativePathNote(server, projectFile, home.dir);
      if (relative !== undefined) notes.push(relative);
    }
  }
  issues.push(...local.issues);
  return { configured, issues, notes };
}

/** Why a project's own mcp.json was not read: names how to trust it. */
export function untrustedProjectNote(home: ClatHome, projectRoot: string): string {
  return `${projectMcpFile(projectRoot)} is not read because the project is not trusted (${trustAdvice(home.trustFile, projectRoot)})`;
}

/**
 * "No server named x" where the mount looks: both files of a trusted project, else the user's
 * file, and why the project's (when it has one) was not read.
 */
export function serverNotFoundMessage(
  name: string,
  home: ClatHome,
  projectRoot: string,
  trusted: boolean,
  known: readonly string[] = [],
): string {
  const projectFile = projectMcpFile(projectRoot);
  const meant = didYouMean(name, known);
  if (trusted)
    return `no server named ${JSON.stringify(name)} in ${home.mcpFile} or ${projectFile}${meant}`;
  const untrusted = existsSync(projectFile) ? `; ${untrustedProjectNote(home, projectRoot)}` : '';
  return `${home.mcpFile}: no server named ${JSON.stringify(name)}${meant}${untrusted}`;
}

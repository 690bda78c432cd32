/** `/mcp` and `clat mcp`: the text and JSON views of the project's MCP surface. @module */
import type { McpSummary, ServerStatus } from '../project/project-mount.js';

export function summaryLine(summary: McpSummary): string {
  const parts = [
    `${summary.configured} configured`,
    `${summary.connecting} connecting`,
    `${summary.connected} connected`,
  ];
  if (summary.needsLogin > 0) parts.push(`${summary.needsLogin} need login`);
  if (summary.failed > 0) parts.push(`${summary.failed} failed`);
  return `MCP servers: ${parts.join(' · ')}${summary.frozen ? ' (registries frozen)' : ''}`;
}

function versionText(server: ServerStatus): string {
  if (server.protocolVersion === undefined) return '-';
  return server.era === undefined
    ? server.protocolVersion
    : `${server.protocolVersion} (${server.era})`;
}

/** The /mcp text block. Every string in `summary` is already redacted by the mount. */
export function formatMcpStatus(
  summary: McpSummary,
  options: { configIssues?: string[]; notes?: string[] } = {},
): string {
  const lines = [summaryLine(summary)];
  for (const note of options.notes ?? []) lines.push(note);
  const issues = options.configIssues ?? [];
  if (issues.length > 0) {
    lines.push('Config issues (these entries were skipped):');
    for (const issue of issues) lines.push(`  ! ${issue}`);
  }
  if (summary.servers.length === 0) {
    lines.push('  (no MCP servers configured; add one with `clat mcp add`)');
    return `${lines.join('\n')}\n`;
  }
  const width = Math.max(...summary.servers.map((s) => s.name.length));
  for (const server of summary.servers) {
    const state =
      server.state === 'connecting' && server.phase !== undefined && server.phase !== 'connecting'
        ? `connecting (${server.phase})`
        : server.state === 'needs-login'
          ? 'needs login'
          : server.state;
    const prompts =
      server.prompts > 0 ? `, ${server.prompts} prompt${server.prompts === 1 ? '' : 's'}` : '';
    const tools = `${server.tools} tool${server.tools === 1 ? '' : 's'}${prompts}`;
    const timing = server.durationMs === undefined ? '' : `  ${server.durationMs} ms`;
    lines.push(
      `  ${server.name.padEnd(width)}  ${server.transport.padEnd(5)}  ${state.padEnd(10)}  ${versionText(server)}  ${tools}  [${server.origin}] ${server.target}${timing}`,
    );
    for (const warning of server.warnings) lines.push(`      warning: ${warning}`);
    if (server.state === 'needs-login') {
      lines.push(`      to log in, run: ${server.login ?? 'clat mcp login'}`);
    } else if (server.failure !== undefined) {
      lines.push(`      error: ${server.failure}`);
      if (server.stderrTail.length > 0) {
        lines.push(`      stderr (last ${server.stderrTail.length} lines):`);
        for (const line of server.stderrTail) lines.push(`        | ${line}`);
      }
    }
  }
  return `${lines.join('\n')}\n`;
}

export function mcpStatusJson(
  summary: McpSummary,
  configIssues: string[] = [],
  notes: string[] = [],
): unknown {
  return { ...summary, configIssues, notes };
}

/** One line per server that waits for an OAuth login, naming the exact command. */
export function needsLoginLines(summary: McpSummary): string[] {
  return summary.servers
    .filter((server) => server.state === 'needs-login')
    .map(
      (server) =>
        `MCP server ${server.name} needs login; run \`${server.login ?? 'clat mcp login'}\` (its tools are not available until then)`,
    );
}

/** `/mcp` and `clat mcp`: the text and JSON views of the project's MCP surface. @module */
import {
  sanitizeTerminalLine as line,
  type MountSummary as McpSummary,
  qualifyToolName,
  type MountStatus as ServerStatus,
  shellWord,
} from '@clat/kernel';
import { columnsOf, padColumns } from './columns.js';

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

/** `, 2 prompts` after the tool count; nothing for none. */
function counted(count: number, what: string): string {
  return count > 0 ? `, ${count} ${what}${count === 1 ? '' : 's'}` : '';
}

function versionText(server: ServerStatus): string {
  if (server.protocolVersion === undefined) return '-';
  return line(
    server.era === undefined ? server.protocolVersion : `${server.protocolVersion} (${server.era})`,
  );
}

/** The roots line of a connected MCP server: offered or not, and how often it asked. */
function rootsText(server: ServerStatus): string | undefined {
  if (server.roots === undefined || server.state !== 'connected') return undefined;
  if (!server.roots.offered) return 'not offered';
  const asked = server.roots.requests;
  // A server that asked may narrow itself to the roots (server-filesystem drops the directories
  // its arguments name): say how to keep them, if its arguments name any.
  // An installed package has no mcp.json entry to edit: its setting is the store's.
  const keep =
    asked === 0 || server.roots.pathArguments !== true
      ? ''
      : server.origin === 'package'
        ? `; to keep the directories its arguments name instead, run "clat plugin roots ${shellWord(server.name)} off"`
        : '; to keep the directories its arguments name instead, set "roots": false on its entry';
  return `project root offered; the server asked ${asked} time${asked === 1 ? '' : 's'}${keep}`;
}

/** Log levels shown in the text view (`--json` has every kept message). */
const SHOWN_LOG_LEVELS: ReadonlySet<string> = new Set([
  'warning',
  'error',
  'critical',
  'alert',
  'emergency',
]);

/** Severe log messages the text view shows per server, newest last. */
const SHOWN_LOG_ENTRIES = 3;

/** Characters of one log message in the text view: one short line each (`--json` has more). */
const SHOWN_LOG_CHARS = 200;

/** The server's newest warnings and worse from its own log, one line each, newest last. */
function logLines(server: ServerStatus): string[] {
  const severe = server.logTail.filter((entry) => SHOWN_LOG_LEVELS.has(entry.level));
  const shown = severe.slice(-SHOWN_LOG_ENTRIES);
  const lines = shown.map((entry) => {
    const logger = entry.logger === undefined ? '' : ` ${line(entry.logger)}`;
    const text =
      entry.text.length > SHOWN_LOG_CHARS ? `${entry.text.slice(0, SHOWN_LOG_CHARS)}…` : entry.text;
    return `      log ${line(entry.level)}${logger}: ${line(text)}`;
  });
  const earlier = severe.length - shown.length;
  if (earlier > 0) {
    const what = `${earlier} earlier warning${earlier === 1 ? '' : 's'} or worse`;
    lines.unshift(`      log: ${what} not shown (\`clat mcp --json\` lists them)`);
  }
  return lines;
}

/** `, GET stream open` for transports with a standalone server stream; nothing otherwise. */
function getStreamText(server: ServerStatus): string {
  switch (server.getStream) {
    case undefined:
      return '';
    case 'none':
      return ', no GET stream';
    default:
      return `, GET stream ${server.getStream}`;
  }
}

/**
 * The /mcp text block. Every string in `summary` is already redacted by the mount; each is shown
 * as one sanitised line, since servers write versions, failures and stderr.
 */
export function formatMcpStatus(
  summary: McpSummary,
  options: {
    configIssues?: string[];
    skippedEntries?: string | undefined;
    notes?: string[];
    /** How this view names the login to `server` (the session's `/login`); else the mount's. */
    login?: (server: string) => string;
  } = {},
): string {
  const lines = [summaryLine(summary)];
  for (const note of options.notes ?? []) lines.push(line(note));
  const issues = options.configIssues ?? [];
  const skipped = options.skippedEntries ?? 'these entries were skipped';
  if (issues.length > 0) {
    lines.push(`Config issues (${line(skipped)}):`);
    for (const issue of issues) lines.push(`  ! ${line(issue)}`);
  }
  if (summary.servers.length === 0) {
    // "Add one" only when nothing is configured: with issues, `clat mcp add` may refuse the file.
    lines.push(
      issues.length === 0
        ? '  (no MCP servers configured; add one with `clat mcp add`)'
        : `  (no MCP server mounted: ${line(skipped)})`,
    );
    return `${lines.join('\n')}\n`;
  }
  const names = summary.servers.map((s) => line(s.name));
  const width = Math.max(...names.map(columnsOf));
  summary.servers.forEach((server, index) => {
    const state =
      server.state === 'connecting' && server.phase !== undefined && server.phase !== 'connecting'
        ? `connecting (${server.phase})`
        : server.state === 'needs-login'
          ? 'needs login'
          : server.state;
    const prompts = `${counted(server.prompts, 'prompt')}${counted(server.systemPrompts, 'system prompt')}`;
    const tools = `${server.tools} tool${server.tools === 1 ? '' : 's'}${prompts}${getStreamText(server)}`;
    const timing = server.durationMs === undefined ? '' : `  ${server.durationMs} ms`;
    lines.push(
      `  ${padColumns(names[index] ?? '', width)}  ${server.transport.padEnd(5)}  ${state.padEnd(10)}  ${versionText(server)}  ${tools}  [${line(server.origin)}] ${line(server.target)}${timing}`,
    );
    if (server.tasks !== undefined) lines.push(`      tasks: ${line(server.tasks)}`);
    for (const warning of server.warnings) lines.push(`      warning: ${line(warning)}`);
    lines.push(...logLines(server));
    const roots = rootsText(server);
    if (roots !== undefined) lines.push(`      roots: ${roots}`);
    if (server.state === 'needs-login') {
      const login = options.login?.(server.name) ?? server.login ?? 'clat mcp login';
      lines.push(`      to log in, run: ${line(login)}`);
    } else if (server.failure !== undefined) {
      const failure = server.failure;
      lines.push(`      error: ${line(failure)}`);
      // Lines the error already quotes are not shown twice (`--json` keeps the whole tail); the
      // rest are shown in the order written, and said to be the rest.
      const kept = server.stderrTail;
      const tail = kept.filter((text) => text.trim() !== '' && !failure.includes(text.trim()));
      if (tail.length > 0) {
        // An HTTP server has no stderr: its tail is the transport's recent failures.
        const http = server.transport === 'http' || server.transport === 'sse';
        const what = http ? 'recent HTTP failures' : 'stderr';
        const which =
          tail.length === kept.length
            ? `last ${tail.length} line${tail.length === 1 ? '' : 's'}`
            : `${tail.length} more of its last ${kept.length} lines, oldest first`;
        lines.push(`      ${what} (${which}):`);
        for (const text of tail) lines.push(`        | ${line(text)}`);
      }
    }
  });
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
        `MCP server ${line(server.name)} needs login; run \`${line(server.login ?? 'clat mcp login')}\` (its tools are not available until then)`,
    );
}

/**
 * One line per connected server that skipped some of its tools (a schema no validator accepts,
 * one nested too deep): `clat tools` lists what registered, so it says what is missing from it.
 */
export function skippedToolLines(summary: McpSummary, statusCommand: string): string[] {
  const lines: string[] = [];
  for (const server of summary.servers) {
    if (server.state !== 'connected') continue;
    const skipped = server.warnings.filter((warning) => /^tool .* skipped: /.test(warning)).length;
    if (skipped === 0) continue;
    lines.push(
      `${skipped} tool${skipped === 1 ? '' : 's'} of server ${line(JSON.stringify(server.name))} ${skipped === 1 ? 'was' : 'were'} skipped; run "${line(statusCommand)}" for why`,
    );
  }
  return lines;
}

/**
 * The warning of a connected server that skipped the tool registered as `name` (its input
 * schema is no object schema, or invalid), shown as it is in `clat mcp`; undefined when no
 * server skipped it. `clat call` says this instead of "not registered".
 */
export function skippedToolWarning(summary: McpSummary, name: string): string | undefined {
  for (const server of summary.servers) {
    if (server.state !== 'connected') continue;
    for (const warning of server.warnings) {
      const match = /^tool ("(?:[^"\\]|\\.)*") of MCP server "(?:[^"\\]|\\.)*" skipped: /.exec(
        warning,
      );
      if (match === null) continue;
      let qualified: string | undefined;
      try {
        qualified = qualifyToolName('mcp', server.name, JSON.parse(match[1] as string) as string);
      } catch {
        continue;
      }
      if (qualified === name) return line(warning);
    }
  }
  return undefined;
}

/**
 * One line per server that is not connected (failed, waiting for a login, still connecting), for
 * listings that show only what connected (`clat tools`, `clat prompts`, `clat resources`).
 * `statusCommand` is the `clat mcp` that shows why (project-command.ts).
 */
export function unavailableLines(summary: McpSummary, statusCommand: string): string[] {
  return summary.servers
    .filter((server) => server.state !== 'connected')
    .map((server) => unavailableLine(server, statusCommand));
}

/**
 * Why one server is not connected, and what shows more (`clat tools --server x` says it too).
 * `withReason`: a failed server's first failure line too (`clat call` of a tool only it could own).
 */
export function unavailableLine(
  server: McpSummary['servers'][number],
  statusCommand: string,
  withReason = false,
): string {
  const name = line(JSON.stringify(server.name));
  if (server.state === 'needs-login') {
    return `server ${name} needs login; run \`${line(server.login ?? 'clat mcp login')}\``;
  }
  if (withReason && server.state === 'failed' && server.failure !== undefined) {
    const reason = line(server.failure.split('\n')[0] ?? '');
    return `server ${name} failed: ${reason}; run "${line(statusCommand)}" for details`;
  }
  // Connecting when the registries froze: an npx download, a slow start.
  const state = server.state === 'connecting' ? 'still connecting' : server.state;
  return `server ${name} is ${state}; run "${line(statusCommand)}" for details`;
}

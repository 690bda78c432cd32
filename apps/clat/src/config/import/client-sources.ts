/**
 * Where other MCP clients keep their server lists, per their documentation, and which part of
 * each file holds the servers. Project-level files are read from the current directory.
 * @module
 */
import { join } from 'node:path';

export const IMPORT_CLIENTS = [
  'claude-desktop',
  'claude-code',
  'cursor',
  'vscode',
  'gemini',
  'codex',
] as const;
export type ImportClient = (typeof IMPORT_CLIENTS)[number];

export function isImportClient(value: string): value is ImportClient {
  return (IMPORT_CLIENTS as readonly string[]).includes(value);
}

/** How the servers sit in a file. */
export type SourceShape =
  /** `{ "mcpServers": { name: entry } }` (Claude Desktop, Cursor, Gemini, `.mcp.json`). */
  | 'mcpServers'
  /** `~/.claude.json`: `mcpServers` plus `projects[<root>].mcpServers` for the current project. */
  | 'claude-json'
  /** VS Code `mcp.json`: `{ "servers": {...}, "inputs": [...] }`. */
  | 'vscode-mcp'
  /** VS Code `settings.json`: `{ "mcp": { "servers": {...} } }`. */
  | 'vscode-settings'
  /** Codex `config.toml`: `[mcp_servers.<name>]` tables. */
  | 'codex-toml';

export interface SourceFile {
  path: string;
  shape: SourceShape;
  /** `user` or `project`, shown in the report. */
  scope: 'user' | 'project';
}

export interface SourceContext {
  home: string;
  cwd: string;
  env: Readonly<Record<string, string | undefined>>;
  platform: NodeJS.Platform;
}

/** The per-user application-data directory: `~/Library/Application Support`, `%APPDATA%`, XDG. */
function appData(context: SourceContext): string {
  if (context.platform === 'darwin') return join(context.home, 'Library', 'Application Support');
  if (context.platform === 'win32') {
    return context.env.APPDATA ?? join(context.home, 'AppData', 'Roaming');
  }
  return context.env.XDG_CONFIG_HOME || join(context.home, '.config');
}

/** The documented files of `client`, user scope first; missing files are skipped by the reader. */
export function sourceFiles(client: ImportClient, context: SourceContext): SourceFile[] {
  const { home, cwd } = context;
  switch (client) {
    case 'claude-desktop':
      return [
        {
          path: join(appData(context), 'Claude', 'claude_desktop_config.json'),
          shape: 'mcpServers',
          scope: 'user',
        },
      ];
    case 'claude-code':
      return [
        { path: join(home, '.claude.json'), shape: 'claude-json', scope: 'user' },
        { path: join(cwd, '.mcp.json'), shape: 'mcpServers', scope: 'project' },
      ];
    case 'cursor':
      return [
        { path: join(home, '.cursor', 'mcp.json'), shape: 'mcpServers', scope: 'user' },
        { path: join(cwd, '.cursor', 'mcp.json'), shape: 'mcpServers', scope: 'project' },
      ];
    case 'vscode': {
      const user = join(appData(context), 'Code', 'User');
      return [
        { path: join(user, 'mcp.json'), shape: 'vscode-mcp', scope: 'user' },
        { path: join(user, 'settings.json'), shape: 'vscode-settings', scope: 'user' },
        { path: join(cwd, '.vscode', 'mcp.json'), shape: 'vscode-mcp', scope: 'project' },
      ];
    }
    case 'gemini':
      return [
        { path: join(home, '.gemini', 'settings.json'), shape: 'mcpServers', scope: 'user' },
        { path: join(cwd, '.gemini', 'settings.json'), shape: 'mcpServers', scope: 'project' },
      ];
    case 'codex':
      return [
        {
          path: join(context.env.CODEX_HOME || join(home, '.codex'), 'config.toml'),
          shape: 'codex-toml',
          scope: 'user',
        },
      ];
  }
}

/** The shape of an explicitly named `--file`, from its name. */
export function shapeOfFile(client: ImportClient, path: string): SourceShape {
  if (client === 'codex' || path.endsWith('.toml')) return 'codex-toml';
  if (client === 'vscode') return path.endsWith('settings.json') ? 'vscode-settings' : 'vscode-mcp';
  // Read as ~/.claude.json whatever its name (a copy, a backup): its per-project entries are
  // found when it has them, and a project's .mcp.json reads the same ("mcpServers" only).
  if (client === 'claude-code') return 'claude-json';
  return 'mcpServers';
}

/**
 * Reads another client's configuration file and returns its raw server entries. JSON files are
 * read as JSONC (VS Code and Cursor files may hold comments and trailing commas); Codex's
 * `config.toml` is read with a real TOML parser.
 * @module
 */
import { readFile } from 'node:fs/promises';
import { ClatError } from '@clat/kernel';
import { type ParseError, parse as parseJsonc, printParseErrorCode } from 'jsonc-parser';
import { parse as parseToml } from 'smol-toml';
import { CliErrorCode } from '../../errors.js';
import type { SourceShape } from './client-sources.js';

export interface ForeignServer {
  name: string;
  raw: unknown;
  /**
   * Set on servers a user-level file keeps for one project (Claude Code's "local" scope in
   * `~/.claude.json`): they belong to that project, not to every one.
   */
  projectOnly?: true;
}

export interface ForeignFile {
  servers: ForeignServer[];
  /** VS Code `inputs` ids that entries may reference as `${input:id}`. */
  inputs: Map<string, { password: boolean; description?: string }>;
}

/** A file that exists but cannot be read as its client writes it. */
export class ForeignFileError extends ClatError<typeof CliErrorCode.CLI_CONFIG_INVALID> {
  constructor(message: string) {
    super(CliErrorCode.CLI_CONFIG_INVALID, message);
    this.name = 'ForeignFileError';
  }
}

type JsonMap = Record<string, unknown>;

function isMap(value: unknown): value is JsonMap {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function entriesOf(value: unknown, file: string, field: string): ForeignServer[] {
  if (value === undefined) return [];
  if (!isMap(value)) throw new ForeignFileError(`${file}: ${field}: must be an object of servers`);
  return Object.entries(value).map(([name, raw]) => ({ name, raw }));
}

function parseJsonText(file: string, text: string): unknown {
  const errors: ParseError[] = [];
  const value = parseJsonc(text, errors, { allowTrailingComma: true, disallowComments: false });
  const first = errors[0];
  if (first !== undefined) {
    const line = text.slice(0, first.offset).split('\n').length;
    throw new ForeignFileError(
      `${file}: line ${line}: not valid JSON (${printParseErrorCode(first.error)})`,
    );
  }
  return value;
}

/**
 * Reads `file` as `shape`. Returns undefined when the file does not exist; throws
 * ForeignFileError naming the file when it cannot be parsed.
 */
export async function readForeignFile(
  file: string,
  shape: SourceShape,
  projectRoot: string,
): Promise<ForeignFile | undefined> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
    throw new ForeignFileError(`${file}: cannot be read: ${(error as Error).message}`);
  }
  const inputs: ForeignFile['inputs'] = new Map();
  if (shape === 'codex-toml') {
    let root: unknown;
    try {
      root = parseToml(text);
    } catch (error) {
      const message = (error as Error).message.split('\n')[0];
      throw new ForeignFileError(`${file}: not valid TOML (${message})`);
    }
    return { servers: entriesOf((root as JsonMap).mcp_servers, file, 'mcp_servers'), inputs };
  }
  const root = parseJsonText(file, text);
  if (!isMap(root)) throw new ForeignFileError(`${file}: (root): must be a JSON object`);
  switch (shape) {
    case 'mcpServers':
      return { servers: entriesOf(root.mcpServers, file, 'mcpServers'), inputs };
    case 'claude-json': {
      const servers = entriesOf(root.mcpServers, file, 'mcpServers');
      // Claude Code's "local" scope: servers stored for one project path inside ~/.claude.json.
      const projects = isMap(root.projects) ? root.projects : {};
      const local = projects[projectRoot];
      if (isMap(local)) {
        const field = `projects[${JSON.stringify(projectRoot)}].mcpServers`;
        for (const server of entriesOf(local.mcpServers, file, field)) {
          servers.push({ ...server, projectOnly: true });
        }
      }
      return { servers, inputs };
    }
    case 'vscode-settings': {
      const mcp = root.mcp;
      return { servers: isMap(mcp) ? entriesOf(mcp.servers, file, 'mcp.servers') : [], inputs };
    }
    case 'vscode-mcp': {
      if (Array.isArray(root.inputs)) {
        for (const input of root.inputs) {
          if (!isMap(input) || typeof input.id !== 'string') continue;
          inputs.set(input.id, {
            password: input.password === true,
            ...(typeof input.description === 'string' ? { description: input.description } : {}),
          });
        }
      }
      return { servers: entriesOf(root.servers, file, 'servers'), inputs };
    }
  }
}

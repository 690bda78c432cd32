/**
 * `clat mcp add-json [<name>] '<json>'`: a server entry as a README or another client shows it,
 * pasted as is (Claude Code's `mcp add-json`). The JSON is one entry (`{"command": …}`,
 * `{"type": "http", "url": …}`) or a file's worth of them (`{"mcpServers": {…}}`, VS Code's
 * `{"servers": {…}}`, or `{"<name>": {…}}`), from which the one named, or the only one, is
 * taken. Other clients' fields map as `clat mcp import` maps them (`${workspaceFolder}`,
 * `${env:VAR}`, `httpUrl`, ...), and what has no CLAT equivalent is said.
 * @module
 */
import { homedir } from 'node:os';
import { isJsonObject, type JsonObject, sanitizeTerminalLine } from '@clat/kernel';
import { parseFlags } from '../cli-options.js';
import type { CommandIO } from '../command.js';
import { mapForeignEntry } from '../config/import/map-entry.js';
import { putServerEntry } from '../config/mcp-config-file.js';
import { CliError, CliErrorCode } from '../errors.js';
import { literalValues, reportAdded } from './mcp-add.js';
import { editTarget, SCOPE_OPTIONS } from './mcp-scope.js';

function isEntry(value: unknown): boolean {
  return isJsonObject(value) && ('command' in value || 'url' in value || 'httpUrl' in value);
}

function usage(message: string): CliError {
  return new CliError(CliErrorCode.CLI_USAGE, `clat mcp add-json: ${message}`);
}

/** The JSON as typed; the error never shows its text, which may hold a key. */
function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    const at = /position (\d+)/.exec((error as Error).message)?.[1];
    throw usage(
      `the JSON is not valid${at === undefined ? '' : ` (at character ${Number(at) + 1})`}; its text is not shown, since it may hold a key`,
    );
  }
}

/** The servers a pasted file-shaped JSON holds, by name (undefined for a single entry). */
function serversOf(json: JsonObject): Map<string, unknown> | undefined {
  if (isEntry(json)) return undefined;
  const vscode = isJsonObject(json.mcp) ? json.mcp.servers : undefined;
  const wrapped = json.mcpServers ?? json.servers ?? vscode;
  const map = isJsonObject(wrapped) ? wrapped : json;
  return new Map(Object.entries(map).filter(([, value]) => isEntry(value)));
}

/** The name and entry to add: the one named, the only one, or the entry itself. */
function pick(name: string | undefined, json: unknown): { name: string; raw: JsonObject } {
  if (!isJsonObject(json))
    throw usage('the JSON must be an object: one server entry, or mcpServers');
  const servers = serversOf(json);
  if (servers === undefined) {
    if (name === undefined) {
      throw usage(
        "the JSON is one server entry without its name; give the name first: clat mcp add-json <name> '<json>'",
      );
    }
    return { name, raw: json };
  }
  const names = [...servers.keys()];
  if (names.length === 0) {
    throw usage('the JSON holds no server entry (an object with "command" or "url")');
  }
  if (name !== undefined && servers.has(name))
    return { name, raw: servers.get(name) as JsonObject };
  if (names.length === 1) {
    const only = names[0] as string;
    return { name: name ?? only, raw: servers.get(only) as JsonObject };
  }
  const listed = names.map((each) => JSON.stringify(sanitizeTerminalLine(each))).join(', ');
  throw usage(
    `the JSON holds ${names.length} servers (${listed})${name === undefined ? '' : `, none named ${JSON.stringify(name)}`}; name the one to add before the JSON`,
  );
}

export async function addJson(argv: string[], io: CommandIO): Promise<number> {
  const { values, positionals } = parseFlags('mcp add-json', argv, {
    force: { type: 'boolean' },
    ...SCOPE_OPTIONS,
  });
  if (positionals.length === 0 || positionals.length > 2) {
    throw usage("expected [<name>] '<json>' (the JSON in single quotes, as one word)");
  }
  const text = positionals[positionals.length - 1] as string;
  const { name, raw } = pick(
    positionals.length === 2 ? positionals[0] : undefined,
    parseJson(text),
  );
  const target = await editTarget('add-json', values, io);
  const mapped = mapForeignEntry(raw, {
    client: 'claude-code',
    from: 'the JSON',
    home: homedir(),
    inputs: new Map(),
  });
  if (mapped.entry === undefined) throw usage(`${mapped.skipped ?? 'the entry is not usable'}`);
  const { file } = target;
  const server = await putServerEntry(file, name, mapped.entry, {
    replace: values.force === true,
    invalid: (issues) =>
      usage(
        `${issues.map((issue) => `${issue.path.startsWith(`${name}.`) ? issue.path.slice(name.length + 1) : issue.path}: ${issue.message}`).join('; ')}; nothing was written to ${file}`,
      ),
  });
  const entry = mapped.entry as { env?: Record<string, string>; headers?: Record<string, string> };
  const typed = literalValues(entry.env ?? {}, entry.headers ?? {}, (kind, key) =>
    kind === 'env' ? `env ${key}` : `header ${JSON.stringify(key)}`,
  );
  await reportAdded(
    target,
    server,
    typed,
    io,
    mapped.notes.map((note) => `Note: ${sanitizeTerminalLine(note)}`),
  );
  return 0;
}

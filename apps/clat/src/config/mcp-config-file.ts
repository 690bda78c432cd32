/**
 * `~/.clat/mcp.json`: loading through the kernel's per-entry validation, and safe edits for
 * `clat mcp add|remove` that keep the wrapper shape and every unknown key.
 * @module
 */
import {
  type McpServerConfig,
  type ParsedMcpConfig,
  parseMcpConfig,
  parseServerEntry,
  type ServerOrigin,
} from '@clat/adapter-mcp';
import { type ConfigIssue, describeJsonSyntaxError, normalizeNameSegment } from '@clat/kernel';
import { CliError, CliErrorCode } from '../errors.js';
import { type CommitEdit, editConfigFile } from './config-lock.js';
import { findDuplicateKeys } from './duplicate-keys.js';
import { fieldHints } from './field-hints.js';
import { DEFAULT_JSON_STYLE, formatJson, type JsonStyle, jsonStyleOf } from './json-style.js';
import { readSmallFile } from './read-small-file.js';

export interface LoadedMcpConfig extends ParsedMcpConfig {
  file: string;
  /** False when the file does not exist (no servers, no issues). */
  exists: boolean;
}

function readText(file: string): string | undefined {
  try {
    return readSmallFile(file);
  } catch (error) {
    throw new CliError(
      CliErrorCode.CLI_CONFIG_INVALID,
      `${file}: cannot be read: ${(error as Error).message}`,
      { cause: error },
    );
  }
}

/** Loads mcp.json; a missing file is an empty configuration. Bad entries become issues. */
export async function loadMcpConfig(
  file: string,
  origin: ServerOrigin = 'user',
): Promise<LoadedMcpConfig> {
  const text = readText(file);
  if (text === undefined) return { file, exists: false, servers: [], issues: [] };
  const parsed = parseMcpConfig(file, text, origin);
  const duplicates = duplicateIssues(file, text);
  if (duplicates.length > 0) parsed.issues = [...duplicates, ...parsed.issues];
  return { file, exists: true, ...parsed };
}

function duplicateIssues(file: string, text: string): ConfigIssue[] {
  let keys: string[];
  try {
    keys = findDuplicateKeys(text);
  } catch {
    return []; // not valid JSON: parseMcpConfig reports that
  }
  return keys.map((path) => ({
    file,
    path,
    message: 'duplicate key; only its last value is used, remove the others',
  }));
}

const RESERVED_NAMES = new Set(['__proto__', 'constructor', 'prototype', '.', '..']);

/**
 * Why `name` cannot be a server name, or undefined when it can. Names become object keys, file
 * names and tool-name segments: no path separators, control or invisible characters, reserved
 * words, or surrounding spaces.
 */
export function serverNameProblem(name: string): string | undefined {
  if (name === '' || name.length > 64) return 'must be 1-64 characters';
  if (RESERVED_NAMES.has(name)) return 'is a reserved word';
  if (/[/\\]/.test(name)) return 'must not contain "/" or "\\"';
  if (/[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/u.test(name))
    return 'must not contain control or invisible characters';
  if (name.trim() !== name) return 'must not start or end with a space';
  if (normalizeNameSegment(name) === '') {
    return 'needs an ASCII letter or digit: its tool names are built from it (mcp_<name>_<tool>)';
  }
  return undefined;
}

/** Throws CLI_USAGE naming the file and the value when `name` is not a usable server name. */
export function assertServerName(file: string, name: string): void {
  const problem = serverNameProblem(name);
  if (problem === undefined) return;
  throw new CliError(
    CliErrorCode.CLI_USAGE,
    `${file}: server name ${JSON.stringify(name)} ${problem}`,
  );
}

/** `<file>: <path>: <message>`, with what an unknown field was likely meant to be. */
export function formatIssue(issue: ConfigIssue): string {
  return `${issue.file}: ${issue.path}: ${issue.message}${fieldHints(issue)}`;
}

type JsonMap = Record<string, unknown>;

interface EditableDocument {
  root: JsonMap;
  /** The map that holds the entries: the root or its `mcpServers` wrapper. */
  servers: JsonMap;
  /** The file's own layout, kept when it is written back. */
  style: JsonStyle;
}

/** The editable document of `file`, an empty wrapper when it does not exist or is blank. */
async function openDocument(file: string): Promise<EditableDocument> {
  const text = await readText(file);
  if (text === undefined || text.trim() === '') {
    const root: JsonMap = { mcpServers: {} };
    return { root, servers: root.mcpServers as JsonMap, style: DEFAULT_JSON_STYLE };
  }
  let root: unknown;
  try {
    root = JSON.parse(text);
  } catch {
    throw new CliError(
      CliErrorCode.CLI_CONFIG_INVALID,
      `${file}: not valid JSON (${describeJsonSyntaxError(text)}); fix it by hand before editing with clat mcp`,
    );
  }
  if (typeof root !== 'object' || root === null || Array.isArray(root)) {
    throw new CliError(CliErrorCode.CLI_CONFIG_INVALID, `${file}: (root): must be a JSON object`);
  }
  const duplicates = findDuplicateKeys(text);
  if (duplicates.length > 0) {
    throw new CliError(
      CliErrorCode.CLI_CONFIG_INVALID,
      `${file}: duplicate key ${duplicates.join(', ')}; remove the duplicates by hand before editing with clat mcp, so no entry is lost`,
    );
  }
  const map = root as JsonMap;
  const style = jsonStyleOf(text);
  if (Object.hasOwn(map, 'mcpServers')) {
    const inner = map.mcpServers;
    if (typeof inner !== 'object' || inner === null || Array.isArray(inner)) {
      throw new CliError(
        CliErrorCode.CLI_CONFIG_INVALID,
        `${file}: mcpServers: must be an object of servers`,
      );
    }
    return { root: map, servers: inner as JsonMap, style };
  }
  return { root: map, servers: map, style };
}

/** Writes the document back in the file's own layout (a linked file through its link). */
async function saveDocument(commit: CommitEdit, document: EditableDocument): Promise<void> {
  await commit(formatJson(document.root, document.style));
}

/**
 * Adds or replaces one entry after validating it; other entries and unknown keys stay as they
 * were. Throws CLI_CONFIG_INVALID naming the field when the entry is invalid.
 */
export async function putServerEntry(
  file: string,
  name: string,
  entry: JsonMap,
  options: {
    replace?: boolean;
    /** The error for an invalid entry, when its fields came from elsewhere (command-line flags). */
    invalid?: (issues: readonly ConfigIssue[]) => Error;
    /** Told the entry `replace` replaced, as the file held it. */
    replaced?: (previous: unknown) => void;
  } = {},
): Promise<McpServerConfig> {
  assertServerName(file, name);
  const checked = parseServerEntry(file, name, entry, 'user');
  if ('issues' in checked) {
    throw (
      options.invalid?.(checked.issues) ??
      new CliError(
        CliErrorCode.CLI_CONFIG_INVALID,
        checked.issues.map((issue) => formatIssue(issue)).join('\n'),
      )
    );
  }
  await editConfigFile(file, async (commit) => {
    const document = await openDocument(file);
    const { servers } = document;
    if (Object.hasOwn(servers, name) && options.replace !== true) {
      throw new CliError(
        CliErrorCode.CLI_USAGE,
        `${file}: server ${JSON.stringify(name)} already exists; remove it first or pass --force`,
      );
    }
    // `team docs` and `team_docs` would register the same tool names: the second would get none.
    const segment = normalizeNameSegment(name);
    const twin = Object.keys(servers).find(
      (other) => other !== name && normalizeNameSegment(other) === segment,
    );
    if (twin !== undefined) {
      throw new CliError(
        CliErrorCode.CLI_USAGE,
        `${file}: server name ${JSON.stringify(name)} gives the same tool names as ${JSON.stringify(twin)} (mcp_${segment}_…); choose another name`,
      );
    }
    const previous = Object.hasOwn(servers, name) ? servers[name] : undefined;
    servers[name] = entry;
    await saveDocument(commit, document);
    if (previous !== undefined) options.replaced?.(previous);
  });
  return checked.server;
}

/**
 * Removes one entry and returns it as the file held it, read under the same lock (so a racing
 * `add --force` cannot change what it was); throws CLI_SERVER_NOT_FOUND when it is absent.
 */
export async function removeServerEntry(file: string, name: string): Promise<unknown> {
  return editConfigFile(file, async (commit) => {
    const document = await openDocument(file);
    const { servers } = document;
    if (!Object.hasOwn(servers, name)) {
      throw new CliError(
        CliErrorCode.CLI_SERVER_NOT_FOUND,
        `${file}: no server named ${JSON.stringify(name)}`,
      );
    }
    const removed = servers[name];
    delete servers[name];
    await saveDocument(commit, document);
    return removed;
  });
}

/**
 * Adds several entries in one atomic write after validating each; with `replace` false, an
 * existing name is an error. Either every entry is written or none.
 */
export async function putServerEntries(
  file: string,
  entries: ReadonlyArray<{ name: string; entry: JsonMap }>,
  options: { replace?: boolean } = {},
): Promise<McpServerConfig[]> {
  const checked: McpServerConfig[] = [];
  for (const { name, entry } of entries) {
    assertServerName(file, name);
    const result = parseServerEntry(file, name, entry, 'user');
    if ('issues' in result) {
      throw new CliError(
        CliErrorCode.CLI_CONFIG_INVALID,
        result.issues.map((issue) => formatIssue(issue)).join('\n'),
      );
    }
    checked.push(result.server);
  }
  await editConfigFile(file, async (commit) => {
    const document = await openDocument(file);
    const { servers } = document;
    for (const { name } of entries) {
      if (Object.hasOwn(servers, name) && options.replace !== true) {
        throw new CliError(
          CliErrorCode.CLI_USAGE,
          `${file}: server ${JSON.stringify(name)} already exists; remove it first or pass --force`,
        );
      }
    }
    for (const { name, entry } of entries) servers[name] = entry;
    await saveDocument(commit, document);
  });
  return checked;
}

/** The names already in mcp.json (valid or not), without validating anything. */
export async function existingServerNames(file: string): Promise<Set<string>> {
  const { servers } = await openDocument(file);
  return new Set(Object.keys(servers));
}

/** Sets or clears an entry's `disabled` flag; the rest of the file is kept as it was. */
export async function setServerDisabled(
  file: string,
  name: string,
  disabled: boolean,
): Promise<boolean> {
  return editConfigFile(file, async (commit) => {
    const document = await openDocument(file);
    const { servers } = document;
    const entry = Object.hasOwn(servers, name) ? servers[name] : undefined;
    if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) {
      throw new CliError(
        CliErrorCode.CLI_SERVER_NOT_FOUND,
        `${file}: no server named ${JSON.stringify(name)}`,
      );
    }
    const map = entry as JsonMap;
    const was = map.disabled === true;
    if (disabled) map.disabled = true;
    else delete map.disabled;
    await saveDocument(commit, document);
    return was !== disabled;
  });
}

/**
 * Which configured entries a one-shot command has to mount: `clat call mcp_x_*` needs only the
 * servers whose normalised name can own that tool, `clat tools --server x` only `x`. Everything
 * else is never started, so one slow or dead server does not delay an unrelated call.
 * @module
 */
import { LIMITS, normalizeNameSegment, RESOURCE_TOOL_NAMES } from '@clat/kernel';

interface Entry {
  name: string;
  kind: string;
}

/** The registry prefix of an entry's tools (`mcp_{server}_` or `wasm_{plugin}_`). */
function toolPrefix(entry: Entry): string {
  return `${entry.kind === 'wasm' ? 'wasm' : 'mcp'}_${normalizeNameSegment(entry.name)}_`;
}

/**
 * True when `entry` can register a tool named `tool`. Long names keep their first characters
 * before the hash suffix, so the prefix is compared within that kept part.
 */
export function canOwnTool(entry: Entry, tool: string): boolean {
  const prefix = toolPrefix(entry);
  const kept = LIMITS.toolNameChars - 9; // `_` + 8 hex digits of the hash suffix
  if (tool.length > kept && prefix.length > kept) return tool.startsWith(prefix.slice(0, kept));
  return tool.startsWith(prefix);
}

/** A selector for openProject that mounts only the entries able to own `tool`. */
export function ownersOf(tool: string): (entry: Entry) => boolean {
  return (entry) => canOwnTool(entry, tool);
}

/**
 * For `list_resources` and `read_resource` (the kernel's resource tools, owned by no entry): the
 * entry their `server` argument names (`{"server": "x"}` or `server=x`), or every entry when
 * none is named. Any other tool: none.
 */
export function resourceToolReaches(
  tool: string,
  json: unknown,
  words: readonly string[],
): (entry: Entry) => boolean {
  if (!(RESOURCE_TOOL_NAMES as readonly string[]).includes(tool)) return () => false;
  const fromJson =
    typeof json === 'object' && json !== null
      ? (json as Record<string, unknown>).server
      : undefined;
  const server =
    typeof fromJson === 'string'
      ? fromJson
      : words.find((word) => word.startsWith('server='))?.slice('server='.length);
  return (entry) => server === undefined || entry.name === server;
}

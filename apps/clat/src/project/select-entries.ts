/**
 * Which configured entries a one-shot command has to mount: `clat call mcp_x_*` needs only the
 * servers whose normalised name can own that tool, `clat tools --server x` only `x`. Everything
 * else is never started, so one slow or dead server does not delay an unrelated call.
 * @module
 */
import { LIMITS, normalizeNameSegment } from '@clat/kernel';

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

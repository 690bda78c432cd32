/**
 * What the first and last bytes of a JSON-RPC frame say about it: the top-level keys seen and
 * the `id`, when it comes before the head's cut or as the frame's last member. Used for frames
 * too large to parse.
 * @module
 */
import type { JsonRpcId } from '@clat/adapter-mcp';

export interface FrameHead {
  /** Top-level keys whose name was read completely. */
  keys: Set<string>;
  id?: JsonRpcId;
}

/** Reads top-level keys and the `id` from the (possibly cut) start of a JSON object. */
export function readFrameHead(head: string): FrameHead {
  const keys = new Set<string>();
  const result: FrameHead = { keys };
  let depth = 0;
  let i = 0;
  let expectKey = false;
  while (i < head.length) {
    const char = head[i];
    if (char === '"') {
      let end = i + 1;
      while (end < head.length && head[end] !== '"') end += head[end] === '\\' ? 2 : 1;
      if (end >= head.length) break;
      if (depth === 1 && expectKey) {
        const key = JSON.parse(head.slice(i, end + 1)) as string;
        keys.add(key);
        expectKey = false;
        if (key === 'id') {
          const value = /^\s*:\s*(-?\d+(?:\.\d+)?|"(?:[^"\\]|\\.)*"|null)\s*[,}]/.exec(
            head.slice(end + 1),
          );
          if (value?.[1] !== undefined) {
            const id = JSON.parse(value[1]) as JsonRpcId | null;
            if (id !== null) result.id = id;
          }
        }
      }
      i = end + 1;
      continue;
    }
    if (char === '{' || char === '[') {
      depth++;
      expectKey = char === '{' && depth === 1;
    } else if (char === '}' || char === ']') depth--;
    else if (char === ',' && depth === 1) expectKey = true;
    i++;
  }
  return result;
}

/**
 * The `id` when it is the last member of the frame's top-level object, as serializers that write
 * `result` first leave it (`{"result":…,"jsonrpc":"2.0","id":7}`): the object's closing brace is
 * the frame's last character, so an `"id"` member right before it belongs to the top level.
 */
export function readFrameTailId(tail: string): JsonRpcId | undefined {
  const value = /[{,]\s*"id"\s*:\s*(-?\d+(?:\.\d+)?|"(?:[^"\\]|\\.)*")\s*}\s*$/.exec(tail)?.[1];
  return value === undefined ? undefined : (JSON.parse(value) as JsonRpcId);
}

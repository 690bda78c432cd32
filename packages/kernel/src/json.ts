/** JSON value types shared by the contract, the registries and the transports. @module */

export type JsonPrimitive = string | number | boolean | null;
export type JsonValue = JsonPrimitive | JsonValue[] | { [key: string]: JsonValue };
export type JsonObject = { [key: string]: JsonValue };

export function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Node's `Buffer.byteLength` when present (the kernel root stays runtime-neutral). */
const nativeByteLength = (
  globalThis as { Buffer?: { byteLength(text: string, encoding: 'utf8'): number } }
).Buffer?.byteLength;

/**
 * UTF-8 byte length of a string, without allocating a buffer: `Buffer.byteLength` where it
 * exists (about 15 times faster on a 1 MiB string than a JavaScript loop), else a loop.
 */
export function utf8Length(text: string): number {
  if (nativeByteLength !== undefined) return nativeByteLength(text, 'utf8');
  return utf8LengthLoop(text);
}

/** The portable count behind {@link utf8Length}; lone surrogates count as U+FFFD (3 bytes). */
export function utf8LengthLoop(text: string): number {
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x80) bytes += 1;
    else if (code < 0x800) bytes += 2;
    else if (code >= 0xd800 && code <= 0xdbff && i + 1 < text.length) {
      bytes += 4;
      i++;
    } else bytes += 3;
  }
  return bytes;
}

/**
 * True when `value` nests arrays/objects more than `limit` levels deep. Iterative, so a hostile
 * 100,000-deep value is measured without exhausting the stack (JSON.parse accepts such values;
 * JSON.stringify and every recursive walker overflow on them).
 */
export function jsonDepthExceeds(value: unknown, limit: number): boolean {
  const stack: [unknown, number][] = [[value, 0]];
  for (let next = stack.pop(); next !== undefined; next = stack.pop()) {
    const [node, depth] = next;
    if (typeof node !== 'object' || node === null) continue;
    if (depth + 1 > limit) return true;
    const children: unknown[] = Array.isArray(node) ? node : Object.values(node);
    for (const child of children) {
      if (typeof child === 'object' && child !== null) stack.push([child, depth + 1]);
    }
  }
  return false;
}

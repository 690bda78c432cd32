/**
 * Caps the linear memory of a core wasm module by rewriting the maximum page count of every
 * memory it defines. V8's `resourceLimits` cover the JS heap only, so this is the one lever that
 * bounds guest memory: `memory.grow` past the maximum fails inside the guest.
 * @module
 */
import { WasmError, WasmErrorCode } from './errors.js';

export const WASM_PAGE_BYTES = 64 * 1024;
const MEMORY_SECTION = 5;
const HEADER_BYTES = 8;

interface Leb {
  value: number;
  next: number;
}

function readLeb(bytes: Uint8Array, offset: number): Leb {
  let value = 0;
  let shift = 0;
  let next = offset;
  for (;;) {
    const byte = bytes[next];
    if (byte === undefined) throw malformed('truncated LEB128 number');
    next++;
    value += (byte & 0x7f) * 2 ** shift;
    if ((byte & 0x80) === 0) return { value, next };
    shift += 7;
    if (shift > 35) throw malformed('LEB128 number is too long');
  }
}

function writeLeb(value: number): number[] {
  const out: number[] = [];
  let rest = value;
  do {
    let byte = rest % 128;
    rest = Math.floor(rest / 128);
    if (rest !== 0) byte |= 0x80;
    out.push(byte);
  } while (rest !== 0);
  return out;
}

function malformed(detail: string): WasmError {
  return new WasmError(WasmErrorCode.WASM_MEMORY_CAP_FAILED, `malformed core module: ${detail}`);
}

/** What {@link capModuleMemory} changed, per defined memory. */
export interface MemoryCapResult {
  bytes: Uint8Array;
  memories: { minPages: number; maxPages: number | undefined; cappedPages: number }[];
}

/**
 * Returns a copy of `module` whose defined memories have at most `maxPages` pages. Imported
 * memories are left alone (their definer is capped). Throws WASM_MEMORY_CAP_FAILED for a
 * memory64 memory or a minimum above the cap.
 */
export function capModuleMemory(module: Uint8Array, maxPages: number): MemoryCapResult {
  if (module.length < HEADER_BYTES || module[0] !== 0 || module[1] !== 0x61) {
    throw malformed('missing the \\0asm header');
  }
  const memories: MemoryCapResult['memories'] = [];
  let offset = HEADER_BYTES;
  while (offset < module.length) {
    const id = module[offset] as number;
    const size = readLeb(module, offset + 1);
    const start = size.next;
    const end = start + size.value;
    if (end > module.length) throw malformed(`section ${id} runs past the end`);
    if (id !== MEMORY_SECTION) {
      offset = end;
      continue;
    }
    const count = readLeb(module, start);
    const payload: number[] = writeLeb(count.value);
    let cursor = count.next;
    for (let index = 0; index < count.value; index++) {
      const flags = module[cursor] as number;
      if ((flags & 0x04) !== 0) {
        throw new WasmError(
          WasmErrorCode.WASM_MEMORY_CAP_FAILED,
          'memory64 memories are not supported by the memory cap',
        );
      }
      const min = readLeb(module, cursor + 1);
      let max: number | undefined;
      cursor = min.next;
      if ((flags & 0x01) !== 0) {
        const read = readLeb(module, cursor);
        max = read.value;
        cursor = read.next;
      }
      if (min.value > maxPages) {
        throw new WasmError(
          WasmErrorCode.WASM_MEMORY_CAP_FAILED,
          `the guest needs ${min.value * WASM_PAGE_BYTES} bytes of memory at start, over the ${maxPages * WASM_PAGE_BYTES}-byte cap`,
        );
      }
      const capped = max === undefined ? maxPages : Math.min(max, maxPages);
      memories.push({ minPages: min.value, maxPages: max, cappedPages: capped });
      payload.push(flags | 0x01, ...writeLeb(min.value), ...writeLeb(capped));
    }
    if (cursor !== end) throw malformed('memory section has trailing bytes');
    const section = [MEMORY_SECTION, ...writeLeb(payload.length), ...payload];
    const out = new Uint8Array(module.length - (end - offset) + section.length);
    out.set(module.subarray(0, offset), 0);
    out.set(section, offset);
    out.set(module.subarray(end), offset + section.length);
    return { bytes: out, memories };
  }
  return { bytes: module.slice(), memories };
}

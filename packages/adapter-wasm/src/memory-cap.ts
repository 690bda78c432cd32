/**
 * Caps the linear memory of a component by rewriting the maximum page count of every memory its
 * core modules define. V8's `resourceLimits` cover the JS heap only, so this is the one lever that
 * bounds guest memory: `memory.grow` past the maximum fails inside the guest. The cap is for the
 * whole instance: with several memories (several core modules, or multi-memory), their maxima
 * together stay within it (see {@link allotMemoryPages}).
 * @module
 */
import { WasmError, WasmErrorCode } from './errors.js';

export const WASM_PAGE_BYTES = 64 * 1024;
const MEMORY_SECTION = 5;
const HEADER_BYTES = 8;
/** The longest LEB128 of a u32: a maximum written this wide can be capped in place. */
const WIDE_LEB_BYTES = 5;
/** The largest a wasm32 memory can be: an unbounded memory's maximum, written out. */
const MEMORY32_PAGES = 65_536;

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

/** `value` as a LEB128 of exactly `width` bytes (padded with continuation bytes), or undefined. */
function writeLebWide(value: number, width: number): number[] | undefined {
  if (width < 1 || width > WIDE_LEB_BYTES || value >= 2 ** (7 * width)) return undefined;
  const out: number[] = [];
  let rest = value;
  for (let index = 0; index < width; index++) {
    const byte = rest % 128;
    rest = Math.floor(rest / 128);
    out.push(index < width - 1 ? byte | 0x80 : byte);
  }
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

/** The memories a core module defines, in order (imported memories are not listed). */
export function readModuleMemories(
  module: Uint8Array,
): { minPages: number; maxPages: number | undefined }[] {
  // A scan only: no copy of the (often 12 MB) module.
  return (findMemorySection(module)?.memories ?? []).map((memory) => ({
    minPages: memory.minPages,
    maxPages: memory.maxPages,
  }));
}

interface DefinedMemory {
  flags: number;
  minPages: number;
  maxPages: number | undefined;
  /** Where the maximum's LEB128 starts, and its length in bytes (when there is a maximum). */
  maxAt: number;
  maxBytes: number;
}

/** Where the memory section lies (section start and end offsets) and what it defines. */
function findMemorySection(
  module: Uint8Array,
): { offset: number; end: number; memories: DefinedMemory[] } | undefined {
  if (module.length < HEADER_BYTES || module[0] !== 0 || module[1] !== 0x61) {
    throw malformed('missing the \\0asm header');
  }
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
    const memories: DefinedMemory[] = [];
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
      const maxAt = cursor;
      if ((flags & 0x01) !== 0) {
        const read = readLeb(module, cursor);
        max = read.value;
        cursor = read.next;
      }
      memories.push({
        flags,
        minPages: min.value,
        maxPages: max,
        maxAt,
        maxBytes: cursor - maxAt,
      });
    }
    if (cursor !== end) throw malformed('memory section has trailing bytes');
    return { offset, end, memories };
  }
  return undefined;
}

/**
 * Splits an instance's page budget over the memories of its core modules (one list per module):
 * the memory that starts largest (the first on a tie: the main module's) may grow to the budget
 * minus the others' initial sizes; every other memory keeps its initial size. Throws
 * WASM_MEMORY_CAP_FAILED when the initial sizes alone exceed the budget.
 */
export function allotMemoryPages(
  modules: readonly { minPages: number; maxPages: number | undefined }[][],
  totalPages: number,
): number[][] {
  let primary: [number, number] | undefined;
  let initial = 0;
  modules.forEach((memories, module) => {
    memories.forEach((memory, index) => {
      initial += memory.minPages;
      const best = primary === undefined ? undefined : modules[primary[0]]?.[primary[1]];
      if (best === undefined || memory.minPages > best.minPages) primary = [module, index];
    });
  });
  if (initial > totalPages) {
    throw new WasmError(
      WasmErrorCode.WASM_MEMORY_CAP_FAILED,
      `the guest needs ${initial * WASM_PAGE_BYTES} bytes of memory at start, over the ${totalPages * WASM_PAGE_BYTES}-byte cap`,
    );
  }
  return modules.map((memories, module) =>
    memories.map((memory, index) => {
      if (primary?.[0] !== module || primary[1] !== index) return memory.minPages;
      const share = totalPages - (initial - memory.minPages);
      return memory.maxPages === undefined ? share : Math.min(memory.maxPages, share);
    }),
  );
}

/**
 * Returns a copy of `module` whose defined memories have at most `maxPages` pages (one number for
 * all, or one per defined memory). Imported memories are left alone (their definer is capped).
 * Throws WASM_MEMORY_CAP_FAILED for a memory64 memory or a minimum above the cap.
 */
export function capModuleMemory(
  module: Uint8Array,
  maxPages: number | readonly number[],
): MemoryCapResult {
  const section = findMemorySection(module);
  if (section === undefined) return { bytes: module.slice(), memories: [] };
  const maxima = cappedMaxima(section.memories, maxPages);
  const memories: MemoryCapResult['memories'] = [];
  const payload: number[] = writeLeb(section.memories.length);
  section.memories.forEach((memory, index) => {
    const capped = maxima[index] as number;
    memories.push({ minPages: memory.minPages, maxPages: memory.maxPages, cappedPages: capped });
    payload.push(memory.flags | 0x01, ...writeLeb(memory.minPages), ...writeLeb(capped));
  });
  return { bytes: withMemorySection(module, section, payload), memories };
}

/** The maximum each defined memory gets under `maxPages`; throws for a minimum over its cap. */
function cappedMaxima(memories: readonly DefinedMemory[], maxPages: number | readonly number[]) {
  return memories.map((memory, index) => {
    const cap = typeof maxPages === 'number' ? maxPages : (maxPages[index] ?? 0);
    if (memory.minPages > cap) {
      throw new WasmError(
        WasmErrorCode.WASM_MEMORY_CAP_FAILED,
        `the guest needs ${memory.minPages * WASM_PAGE_BYTES} bytes of memory at start, over the ${cap * WASM_PAGE_BYTES}-byte cap`,
      );
    }
    return memory.maxPages === undefined ? cap : Math.min(memory.maxPages, cap);
  });
}

/**
 * Caps `module`'s defined memories as {@link capModuleMemory} does, but in its own bytes, when
 * every memory has a maximum whose encoding is wide enough for its cap (as
 * {@link widenMemoryMaxima} writes them). Returns the function that puts the original bytes
 * back, or undefined (nothing changed) when the module needs {@link capModuleMemory}'s copy.
 * For `WebAssembly.compile`, which copies its bytes when called: cap, compile, restore. Saves
 * the copy of a 12 MB module (12-14 ms of a fresh process's load, most of it page faults).
 */
export function capModuleMemoryInPlace(
  module: Uint8Array,
  maxPages: number | readonly number[],
): (() => void) | undefined {
  const section = findMemorySection(module);
  if (section === undefined) return () => {};
  const maxima = cappedMaxima(section.memories, maxPages);
  const writes: [number, number[]][] = [];
  for (const [index, memory] of section.memories.entries()) {
    const encoded =
      memory.maxPages === undefined
        ? undefined
        : writeLebWide(maxima[index] as number, memory.maxBytes);
    if (encoded === undefined) return undefined;
    writes.push([memory.maxAt, encoded]);
  }
  const original = module.slice(section.offset, section.end);
  for (const [at, encoded] of writes) module.set(encoded, at);
  return () => module.set(original, section.offset);
}

/**
 * A copy of `module` whose defined memories keep their limits, each maximum written 5 bytes wide
 * (an unbounded wasm32 memory gets its largest size, 65,536 pages, written out), so a cap can be
 * written in place later ({@link capModuleMemoryInPlace}). The transpile cache stores core
 * modules this way. Returns `module` itself when it defines no memory.
 */
export function widenMemoryMaxima(module: Uint8Array): Uint8Array {
  const section = findMemorySection(module);
  if (section === undefined) return module;
  const payload: number[] = writeLeb(section.memories.length);
  for (const memory of section.memories) {
    const max = writeLebWide(memory.maxPages ?? MEMORY32_PAGES, WIDE_LEB_BYTES) as number[];
    payload.push(memory.flags | 0x01, ...writeLeb(memory.minPages), ...max);
  }
  return withMemorySection(module, section, payload);
}

/** `module` with its memory section's payload replaced (a copy). */
function withMemorySection(
  module: Uint8Array,
  section: { offset: number; end: number },
  payload: readonly number[],
): Uint8Array {
  const { offset, end } = section;
  const rewritten = [MEMORY_SECTION, ...writeLeb(payload.length), ...payload];
  const out = new Uint8Array(module.length - (end - offset) + rewritten.length);
  out.set(module.subarray(0, offset), 0);
  out.set(rewritten, offset);
  out.set(module.subarray(end), offset + rewritten.length);
  return out;
}

import { parse } from '@bytecodealliance/jco-transpile/wasm-tools';
import { describe, expect, it } from 'vitest';
import { WasmErrorCode } from './errors.js';
import {
  allotMemoryPages,
  capModuleMemory,
  capModuleMemoryInPlace,
  readModuleMemories,
  widenMemoryMaxima,
} from './memory-cap.js';

async function instanceOf(bytes: Uint8Array) {
  const module = await WebAssembly.compile(bytes as Uint8Array<ArrayBuffer>);
  const instance = await WebAssembly.instantiate(module, {});
  return instance.exports as { memory: WebAssembly.Memory; grow(pages: number): number };
}

const GROWER = (limits: string) =>
  `(module (memory (export "memory") ${limits})
     (func (export "grow") (param i32) (result i32) (memory.grow (local.get 0))))`;

describe('capModuleMemory', () => {
  it('adds a maximum to an unbounded memory, and memory.grow fails past it', async () => {
    const capped = capModuleMemory(await parse(GROWER('1')), 4);
    expect(capped.memories).toEqual([{ minPages: 1, maxPages: undefined, cappedPages: 4 }]);
    const guest = await instanceOf(capped.bytes);
    expect(guest.grow(3)).toBe(1);
    expect(guest.grow(1)).toBe(-1);
    expect(guest.memory.buffer.byteLength).toBe(4 * 65536);
  });

  it('lowers a larger maximum and keeps a smaller one', async () => {
    expect(capModuleMemory(await parse(GROWER('1 100')), 4).memories[0]?.cappedPages).toBe(4);
    expect(capModuleMemory(await parse(GROWER('1 2')), 4).memories[0]?.cappedPages).toBe(2);
  });

  it('refuses a module whose initial memory is over the cap', async () => {
    expect(() => capModuleMemory(new Uint8Array([1, 2, 3]), 4)).toThrow('malformed');
    try {
      capModuleMemory(await parse(GROWER('8')), 4);
      expect.unreachable();
    } catch (error) {
      expect((error as { code: string }).code).toBe(WasmErrorCode.WASM_MEMORY_CAP_FAILED);
    }
  });

  it('leaves a module without memory unchanged', async () => {
    const bytes = await parse('(module (func (export "f")))');
    expect(capModuleMemory(bytes, 4)).toEqual({ bytes, memories: [] });
  });
});

describe("a cap written in the module's own bytes (capModuleMemoryInPlace, widenMemoryMaxima)", () => {
  it("widening keeps the limits: an unbounded memory gets wasm32's largest size written out", async () => {
    const unbounded = widenMemoryMaxima(await parse(GROWER('1')));
    expect(readModuleMemories(unbounded)).toEqual([{ minPages: 1, maxPages: 65_536 }]);
    const bounded = widenMemoryMaxima(await parse(GROWER('1 100')));
    expect(readModuleMemories(bounded)).toEqual([{ minPages: 1, maxPages: 100 }]);
    const guest = await instanceOf(bounded);
    expect(guest.grow(99)).toBe(1);
    expect(guest.grow(1)).toBe(-1);
  });

  it('caps a widened module in place; the compile keeps the cap, and restoring gives back its bytes', async () => {
    const bytes = widenMemoryMaxima(await parse(GROWER('1')));
    const original = bytes.slice();
    const restore = capModuleMemoryInPlace(bytes, 4);
    expect(restore).toBeDefined();
    expect(readModuleMemories(bytes)).toEqual([{ minPages: 1, maxPages: 4 }]);
    // WebAssembly.compile copies the bytes when it is called.
    const compiling = WebAssembly.compile(bytes as Uint8Array<ArrayBuffer>);
    restore?.();
    expect(bytes).toEqual(original);
    const instance = await WebAssembly.instantiate(await compiling, {});
    const guest = instance.exports as { grow(pages: number): number };
    expect(guest.grow(3)).toBe(1);
    expect(guest.grow(1)).toBe(-1);
  });

  it('leaves an unbounded memory to the copying cap, and lowers a declared maximum in place', async () => {
    const unbounded = await parse(GROWER('1'));
    const before = unbounded.slice();
    expect(capModuleMemoryInPlace(unbounded, 4)).toBeUndefined();
    expect(unbounded).toEqual(before);
    // A cap never raises a maximum, so a declared one always has room for its capped value.
    const declared = await parse(GROWER('1 100'));
    const restore = capModuleMemoryInPlace(declared, 4);
    expect(readModuleMemories(declared)).toEqual([{ minPages: 1, maxPages: 4 }]);
    restore?.();
    expect(readModuleMemories(declared)).toEqual([{ minPages: 1, maxPages: 100 }]);
    expect(capModuleMemoryInPlace(declared, 1000)).toBeDefined();
    expect(readModuleMemories(declared)).toEqual([{ minPages: 1, maxPages: 100 }]);
  });

  it('refuses an initial memory over the cap before writing anything', async () => {
    const bytes = widenMemoryMaxima(await parse(GROWER('8')));
    const before = bytes.slice();
    expect(() => capModuleMemoryInPlace(bytes, 4)).toThrow(
      expect.objectContaining({ code: WasmErrorCode.WASM_MEMORY_CAP_FAILED }),
    );
    expect(bytes).toEqual(before);
  });
});

describe('allotMemoryPages (one cap for all memories of an instance)', () => {
  it('gives the largest memory the budget minus the others, which keep their initial size', () => {
    const main = { minPages: 10, maxPages: undefined };
    const small = { minPages: 2, maxPages: undefined };
    expect(allotMemoryPages([[main], [small], []], 100)).toEqual([[98], [2], []]);
    expect(allotMemoryPages([[small, main]], 100)).toEqual([[2, 98]]);
    expect(allotMemoryPages([[{ minPages: 1, maxPages: 20 }]], 100)).toEqual([[20]]);
  });

  it('refuses memories whose initial sizes together exceed the cap', () => {
    expect(() =>
      allotMemoryPages(
        [[{ minPages: 60, maxPages: undefined }], [{ minPages: 60, maxPages: undefined }]],
        100,
      ),
    ).toThrow(
      expect.objectContaining({
        code: WasmErrorCode.WASM_MEMORY_CAP_FAILED,
        message: 'the guest needs 7864320 bytes of memory at start, over the 6553600-byte cap',
      }),
    );
  });
});

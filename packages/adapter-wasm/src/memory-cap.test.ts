import { parse } from '@bytecodealliance/jco-transpile/wasm-tools';
import { describe, expect, it } from 'vitest';
import { WasmErrorCode } from './errors.js';
import { allotMemoryPages, capModuleMemory } from './memory-cap.js';

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

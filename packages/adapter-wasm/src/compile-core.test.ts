import { parse } from '@bytecodealliance/jco-transpile/wasm-tools';
import { describe, expect, it } from 'vitest';
import type { PreparedComponent } from './component-cache.js';
import { compileComponent, startCompile } from './component-compile.js';
import { widenMemoryMaxima } from './memory-cap.js';

/** A prepared component around hand-made core modules (no cache, no transpiler involved). */
function preparedWith(
  coreModules: Record<string, Uint8Array>,
  coreModuleDigests?: Record<string, string>,
): PreparedComponent {
  return {
    ...(coreModuleDigests === undefined ? {} : { coreModuleDigests }),
    sha256: '0'.repeat(64),
    dir: '/nonexistent',
    imports: [],
    glueSource: '',
    glueSha256: '0'.repeat(64),
    coreModules,
    transpiled: false,
    transpileMs: 0,
  };
}

// Two functions; the second's body is the invalid opcode 0xff.
const INVALID_BODY = new Uint8Array([
  0, 97, 115, 109, 1, 0, 0, 0, 1, 4, 1, 96, 0, 0, 3, 3, 2, 0, 0, 7, 5, 1, 1, 102, 0, 0, 10, 9, 2, 2,
  0, 11, 4, 0, 0xff, 0, 11,
]);

describe('compiling core modules', () => {
  it('compiles a memory-capped module that instantiates with the cap', async () => {
    const bytes = await parse(
      '(module (memory (export "memory") 1) (func (export "grow") (param i32) (result i32) (memory.grow (local.get 0))))',
    );
    const compiled = await compileComponent(preparedWith({ 'a.wasm': bytes }), 4 * 65536);
    const module = compiled.modules['a.wasm'] as WebAssembly.Module;
    const { exports } = await WebAssembly.instantiate(module, {});
    const grow = exports.grow as (pages: number) => number;
    expect(grow(3)).toBe(1);
    expect(grow(1)).toBe(-1);
  });

  it('caps a module stored with wide maxima in its own bytes, and leaves them as verified', async () => {
    const bytes = widenMemoryMaxima(
      await parse(
        '(module (memory (export "memory") 1) (func (export "grow") (param i32) (result i32) (memory.grow (local.get 0))))',
      ),
    );
    const verified = bytes.slice();
    for (const pages of [4, 8]) {
      const compiled = await compileComponent(preparedWith({ 'a.wasm': bytes }), pages * 65536);
      expect(bytes).toEqual(verified);
      const module = compiled.modules['a.wasm'] as WebAssembly.Module;
      const grow = (await WebAssembly.instantiate(module, {})).exports.grow as (
        n: number,
      ) => number;
      expect(grow(pages - 1)).toBe(1);
      expect(grow(1)).toBe(-1);
    }
  });

  it('still refuses a module with an invalid function body', async () => {
    const compiling = startCompile(preparedWith({ 'bad.wasm': INVALID_BODY }));
    await expect(compiling.modules).rejects.toThrow(/Invalid opcode 0xff/);
    await expect(compiling.modules).rejects.toBeInstanceOf(WebAssembly.CompileError);
  });

  it('reuses the module compiled from the same verified bytes under the same cap', async () => {
    const bytes = await parse('(module (memory (export "memory") 1))');
    const digests = { 'a.wasm': 'a1'.repeat(32) };
    const first = await compileComponent(preparedWith({ 'a.wasm': bytes }, digests), 4 * 65536);
    const again = await compileComponent(preparedWith({ 'a.wasm': bytes }, digests), 4 * 65536);
    expect(again.modules['a.wasm']).toBe(first.modules['a.wasm']);
    // Another cap is other bytes (the memory's maximum differs): compiled anew, and it holds.
    const wider = await compileComponent(preparedWith({ 'a.wasm': bytes }, digests), 8 * 65536);
    expect(wider.modules['a.wasm']).not.toBe(first.modules['a.wasm']);
    const { exports } = await WebAssembly.instantiate(
      wider.modules['a.wasm'] as WebAssembly.Module,
    );
    expect((exports.memory as WebAssembly.Memory).grow(7)).toBe(1);
    // Without a verified digest nothing is reused.
    const plain = await compileComponent(preparedWith({ 'a.wasm': bytes }), 4 * 65536);
    expect(plain.modules['a.wasm']).not.toBe(first.modules['a.wasm']);
  });

  it('does not keep a module that failed to compile', async () => {
    const digests = { 'bad.wasm': 'b2'.repeat(32) };
    for (let attempt = 0; attempt < 2; attempt++) {
      const compiling = startCompile(preparedWith({ 'bad.wasm': INVALID_BODY }, digests));
      await expect(compiling.modules).rejects.toBeInstanceOf(WebAssembly.CompileError);
    }
  });
});

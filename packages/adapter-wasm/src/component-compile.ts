/**
 * Compilation of a prepared component: each verified core module is memory-capped (the cap is
 * per instance, shared by all memories of all core modules) and compiled, streaming where the
 * runtime can. Split from component-cache.ts, which verifies and caches the bytes compiled here.
 * @module
 */
import { LIMITS } from '@clat/kernel';
import type { PreparedComponent } from './component-cache.js';
import {
  allotMemoryPages,
  capModuleMemory,
  readModuleMemories,
  WASM_PAGE_BYTES,
} from './memory-cap.js';

// The global WebAssembly object, typed here so consumers need no DOM lib to compile this file.
const wasm = (
  globalThis as unknown as {
    WebAssembly: {
      compile(bytes: Uint8Array): Promise<WebAssembly.Module>;
      compileStreaming?: (source: Response) => Promise<WebAssembly.Module>;
      CompileError: abstract new (...args: never[]) => Error;
    };
  }
).WebAssembly;

const STREAM_CHUNK_BYTES = 1024 * 1024;

/**
 * Compiles one (verified, memory-capped) core module. `compileStreaming` validates every
 * function exactly as `compile` does (a corrupt body is refused either way), but on Node 20 it
 * takes about half the CPU and wall time for a 12 MB SpiderMonkey module (measured ~30 vs ~60
 * ms CPU), so it is used whenever the runtime has it. The bytes are already in memory; the
 * stream only feeds them in 1 MiB chunks.
 */
function compileCore(bytes: Uint8Array): Promise<WebAssembly.Module> {
  if (typeof wasm.compileStreaming !== 'function' || typeof Response !== 'function') {
    return wasm.compile(bytes);
  }
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      for (let offset = 0; offset < bytes.length; offset += STREAM_CHUNK_BYTES) {
        controller.enqueue(bytes.subarray(offset, offset + STREAM_CHUNK_BYTES));
      }
      controller.close();
    },
  });
  // A CompileError is the module's fault; anything else (a replaced global Response, a runtime
  // without the streaming glue) falls back to the ordinary compile.
  return wasm
    .compileStreaming(new Response(body, { headers: { 'content-type': 'application/wasm' } }))
    .catch((error: unknown) => {
      if (error instanceof wasm.CompileError) throw error;
      return wasm.compile(bytes);
    });
}

/** The compiled core modules of a prepared component, memory-capped. */
export interface CompiledComponent extends Omit<PreparedComponent, 'coreModules'> {
  modules: Record<string, WebAssembly.Module>;
  memoryLimitBytes: number;
}

/** A prepared component whose memory-capped core modules are compiling (see {@link startCompile}). */
export interface CompilingComponent extends Omit<PreparedComponent, 'coreModules'> {
  /** Settles once every core module compiled; rejects with the compile error. */
  modules: Promise<Record<string, WebAssembly.Module>>;
  memoryLimitBytes: number;
}

/**
 * Memory-caps the verified core modules of a prepared component (synchronously: a guest whose
 * initial memory is over the cap throws here) and starts compiling them, so a worker can boot
 * and import the glue while V8 compiles.
 */
export function startCompile(
  prepared: PreparedComponent,
  memoryLimitBytes: number = LIMITS.wasmMemoryBytes,
): CompilingComponent {
  const maxPages = Math.floor(memoryLimitBytes / WASM_PAGE_BYTES);
  const entries = Object.entries(prepared.coreModules);
  // The cap is per instance: all memories of all core modules share it.
  const allotted = allotMemoryPages(
    entries.map(([, bytes]) => readModuleMemories(bytes)),
    maxPages,
  );
  const compiling = entries.map(async ([name, bytes], index) => {
    const capped = capModuleMemory(bytes, allotted[index] ?? []);
    return [name, await compileCore(capped.bytes)] as const;
  });
  const modules = Promise.all(compiling).then((compiled) => {
    const record: Record<string, WebAssembly.Module> = {};
    for (const [name, module] of compiled) record[name] = module;
    return record;
  });
  // Observed here so a failure nobody awaits yet is not an unhandled rejection.
  modules.catch(() => {});
  return {
    sha256: prepared.sha256,
    dir: prepared.dir,
    imports: prepared.imports,
    glueSource: prepared.glueSource,
    transpiled: prepared.transpiled,
    transpileMs: prepared.transpileMs,
    ...(prepared.rebuilt === undefined ? {} : { rebuilt: prepared.rebuilt }),
    modules,
    memoryLimitBytes,
  };
}

/** Memory-caps and compiles the verified core modules of a prepared component. */
export async function compileComponent(
  prepared: PreparedComponent,
  memoryLimitBytes: number = LIMITS.wasmMemoryBytes,
): Promise<CompiledComponent> {
  const { modules, ...rest } = startCompile(prepared, memoryLimitBytes);
  return { ...rest, modules: await modules };
}

/**
 * Compilation of a prepared component: each verified core module is memory-capped (the cap is
 * per instance, shared by all memories of all core modules) and compiled once per process.
 * Split from component-cache.ts, which verifies and caches the bytes compiled here.
 * @module
 */
import { LIMITS } from '@clat/kernel';
import type { PreparedComponent } from './component-cache.js';
import {
  allotMemoryPages,
  capModuleMemory,
  capModuleMemoryInPlace,
  readModuleMemories,
  WASM_PAGE_BYTES,
} from './memory-cap.js';

// The global WebAssembly object, typed here so consumers need no DOM lib to compile this file.
const wasm = (
  globalThis as unknown as {
    WebAssembly: { compile(bytes: Uint8Array): Promise<WebAssembly.Module> };
  }
).WebAssembly;

/**
 * Compiled core modules of this process by the verified digest of their bytes and the memory
 * pages they were capped to: the same verified bytes under the same cap compile to the same
 * module, so a plugin mounted again in this process (another session's scope, a reload) skips
 * the compile (about 40 ms for a 12 MB SpiderMonkey module on Node 20). Held weakly: a module
 * no guest uses any more is collected as before. A module is immutable and every worker gets
 * its own instance, so sharing one is what V8 does itself for identical streamed bytes.
 */
const compiled = new Map<string, WeakRef<WebAssembly.Module>>();
const forget = new FinalizationRegistry<string>((key) => {
  if (compiled.get(key)?.deref() === undefined) compiled.delete(key);
});

/**
 * The compiled module of one core module: from this process's map, or memory-capped (here,
 * synchronously: an initial memory over the cap throws to the caller) and compiled.
 * `WebAssembly.compile` validates every function body (a corrupt one is refused). It is used
 * rather than `compileStreaming`: in a fresh Node 20 process the streaming path (its first
 * Response and web stream) took about twice the wall and CPU time for a 12 MB module (76-86 vs
 * 38-42 ms wall); streaming won only on a second compile of the same bytes in one process, which
 * the map above now serves.
 */
function compileCapped(
  bytes: Uint8Array,
  pages: readonly number[],
  digest: string | undefined,
): Promise<WebAssembly.Module> {
  const key = digest === undefined ? undefined : `${digest}:${pages.join(',')}`;
  const known = key === undefined ? undefined : compiled.get(key)?.deref();
  if (known !== undefined) return Promise.resolve(known);
  // WebAssembly.compile copies its bytes when called: a cap written into the module's own bytes
  // is taken back right after, and those bytes stay as they were verified.
  let compiling: Promise<WebAssembly.Module>;
  const restore = capModuleMemoryInPlace(bytes, pages);
  if (restore === undefined) {
    compiling = wasm.compile(capModuleMemory(bytes, pages).bytes);
  } else {
    try {
      compiling = wasm.compile(bytes);
    } finally {
      restore();
    }
  }
  if (key === undefined) return compiling;
  return compiling.then((module) => {
    compiled.set(key, new WeakRef(module));
    forget.register(module, key);
    return module;
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
  const digests = prepared.coreModuleDigests;
  const compiling = entries.map(([name, bytes], index) =>
    compileCapped(bytes, allotted[index] ?? [], digests?.[name]).then(
      (module) => [name, module] as const,
    ),
  );
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
    glueSha256: prepared.glueSha256,
    ...(prepared.glueCodeCache === undefined ? {} : { glueCodeCache: prepared.glueCodeCache }),
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

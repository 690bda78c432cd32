/**
 * Compilation of a prepared component: each verified core module is memory-capped (the cap is
 * per instance, shared by all memories of all core modules) and compiled once per process.
 * Split from component-cache.ts, which verifies and caches the bytes compiled here.
 * @module
 */
import { LIMITS } from '@clat/kernel';
import type { PreparedComponent } from './component-cache.js';
import { WasmError, WasmErrorCode } from './errors.js';
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
 * The compiled core modules of whole cache entries in this process, by {@link compiledSetKey}
 * (the entry's core module digests, as its authenticated manifest lists them, and the memory
 * limit). A plugin mounted again in this process then neither reads nor hashes its core modules:
 * the modules it gets were compiled from bytes verified against those very digests. (Reading and
 * hashing the 12 MB SpiderMonkey module took 40-60 ms of such a load on the 2-core bench VM,
 * where each fresh page of a buffer costs about 10 µs.) Held weakly, like the map above: the
 * record lives as long as a guest host holds it.
 */
const compiledSets = new Map<string, WeakRef<Record<string, WebAssembly.Module>>>();
const forgetSet = new FinalizationRegistry<string>((key) => {
  if (compiledSets.get(key)?.deref() === undefined) compiledSets.delete(key);
});

/**
 * The key of one cache entry's compiled core modules under one memory limit: every core module's
 * file name and verified digest (sorted by name) and the limit. Undefined without digests.
 */
function compiledSetKey(
  digests: Readonly<Record<string, string>>,
  memoryLimitBytes: number,
): string | undefined {
  const names = Object.keys(digests).sort();
  if (names.length === 0) return undefined;
  return `${memoryLimitBytes}|${names.map((name) => `${name}=${digests[name]}`).join(',')}`;
}

/**
 * The core modules this process compiled, under `memoryLimitBytes`, for a cache entry whose core
 * modules have exactly these verified `digests`; undefined when it holds none (never compiled,
 * or no guest uses them any more).
 */
export function compiledCoreModules(
  digests: Readonly<Record<string, string>>,
  memoryLimitBytes: number,
): Record<string, WebAssembly.Module> | undefined {
  const key = compiledSetKey(digests, memoryLimitBytes);
  return key === undefined ? undefined : compiledSets.get(key)?.deref();
}

function rememberSet(key: string, modules: Record<string, WebAssembly.Module>): void {
  compiledSets.set(key, new WeakRef(modules));
  forgetSet.register(modules, key);
}

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
export interface CompiledComponent extends Omit<PreparedComponent, 'coreModules' | 'compiled'> {
  modules: Record<string, WebAssembly.Module>;
  memoryLimitBytes: number;
}

/** A prepared component whose memory-capped core modules are compiling (see {@link startCompile}). */
export interface CompilingComponent extends Omit<PreparedComponent, 'coreModules' | 'compiled'> {
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
  const { compiled } = prepared;
  if (compiled !== undefined) {
    // Prepared for this process's compiled modules: their bytes were not read, so they cannot
    // be compiled under another cap.
    if (compiled.memoryLimitBytes !== memoryLimitBytes) {
      throw new WasmError(
        WasmErrorCode.WASM_START_FAILED,
        `component ${prepared.sha256} was prepared for a memory limit of ${compiled.memoryLimitBytes} bytes, not ${memoryLimitBytes}`,
      );
    }
    return compilingOf(prepared, Promise.resolve(compiled.modules), memoryLimitBytes);
  }
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
  // Remembered as a set only when every core module has its verified digest.
  const setDigests: Record<string, string> = {};
  for (const [name] of entries) {
    const digest = digests?.[name];
    if (digest !== undefined) setDigests[name] = digest;
  }
  const setKey =
    Object.keys(setDigests).length === entries.length
      ? compiledSetKey(setDigests, memoryLimitBytes)
      : undefined;
  const modules = Promise.all(compiling).then((done) => {
    const record: Record<string, WebAssembly.Module> = {};
    for (const [name, module] of done) record[name] = module;
    if (setKey !== undefined) rememberSet(setKey, record);
    return record;
  });
  return compilingOf(prepared, modules, memoryLimitBytes);
}

/** `prepared` with its core modules compiling into `modules`. */
function compilingOf(
  prepared: PreparedComponent,
  modules: Promise<Record<string, WebAssembly.Module>>,
  memoryLimitBytes: number,
): CompilingComponent {
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

/**
 * Install-time preparation of a component: size and SHA-256 check, jco transpilation into a
 * private cache keyed by the digest, and the import allowlist (memory cap and compilation of the
 * prepared bytes: component-compile.ts). Only glue
 * that our own transpiler produced ever runs; a plugin ships a `.wasm`, never JS. A cache entry
 * is trusted only through its manifest's MAC (keyed by a secret outside the cache directory) and
 * the digests it lists; its files are read and verified once, and the host keeps and runs those
 * verified bytes (workers import the glue from memory, never again from disk). A corrupt or
 * forged entry is rebuilt from the component.
 * @module
 */
import { randomUUID } from 'node:crypto';
import { type FileHandle, mkdir, open, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { Worker } from 'node:worker_threads';
import { cacheKeyPath, loadCacheKey, macMatches, manifestMac } from './cache-key.js';
import { compiledCoreModules } from './component-compile.js';
import {
  type PrepareComponentOptions,
  readPinnedComponent,
  readSized,
  recordedComponentDigest,
} from './component-file.js';
import { sha256Hex } from './digest.js';
import { WasmError, WasmErrorCode } from './errors.js';
import { glueCodeCachePath, verifiedGlueCodeCache } from './glue-code-cache.js';
import { componentInterfaces, disallowedImports, TOOLS_EXPORT } from './import-policy.js';
import { widenMemoryMaxima } from './memory-cap.js';
import { recordDigest } from './source-record.js';

export { MAX_COMPONENT_BYTES, type PrepareComponentOptions } from './component-file.js';

/**
 * Bumped whenever the transpiler, its options or what the cache stores change, so stale cache
 * entries rebuild. v3: core modules are stored with their memory maxima written wide.
 */
export const TRANSPILER_ID = 'jco-transpile@0.15.0/async/no-wasi-shim/v3';

const GLUE_FILE = 'plugin.js';
const MANIFEST_FILE = 'manifest.json';

interface CacheManifest {
  transpiler: string;
  sha256: string;
  imports: string[];
  /** File name → lowercase hex SHA-256 of its bytes. */
  files: Record<string, string>;
  /** HMAC-SHA256 of the fields above under the cache key. */
  mac: string;
}

/** The fields a manifest MAC covers, in a fixed order. */
function macFields(manifest: Omit<CacheManifest, 'mac'>): unknown {
  return [
    manifest.transpiler,
    manifest.sha256,
    manifest.imports,
    Object.entries(manifest.files).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
  ];
}

/** A transpiled, allowlisted component ready to compile. */
export interface PreparedComponent {
  sha256: string;
  /** The cache directory holding our glue and the core modules. */
  dir: string;
  /** Interfaces the component imports, versioned, as its binary names them. */
  imports: string[];
  /** The glue module our transpiler generated, as verified (workers import these bytes). */
  glueSource: string;
  /** SHA-256 (hex) of the glue file, as verified. */
  glueSha256: string;
  /**
   * The verified V8 code cache of the glue's script, when an earlier process left one
   * (glue-code-cache.ts); a guest host's worker makes one otherwise.
   */
  glueCodeCache?: Uint8Array;
  /**
   * Verified bytes of the core modules, by file name (dropped once compiled). Empty when
   * `compiled` holds them.
   */
  coreModules: Record<string, Uint8Array>;
  /**
   * This process's compiled core modules of this entry, under the memory limit the preparation
   * was given (`PrepareComponentOptions.memoryLimitBytes`): their files were not read again.
   */
  compiled?: { modules: Record<string, WebAssembly.Module>; memoryLimitBytes: number };
  /**
   * The SHA-256 (hex) each core module's bytes were verified against, by file name: compiled
   * modules are reused within the process by it. Without it every load compiles.
   */
  coreModuleDigests?: Record<string, string>;
  /** Whether this call transpiled (false: served from the cache). */
  transpiled: boolean;
  /** Milliseconds spent transpiling (0 for a cache hit). */
  transpileMs: number;
  /** Why an existing cache entry was rebuilt instead of used (corrupt, forged), if it was. */
  rebuilt?: string;
}

/** The private compiled-module cache under a CLAT home. */
export function wasmCacheDir(clatHome: string): string {
  return join(clatHome, 'cache', 'wasm');
}

function transpileInWorker(bytes: Uint8Array): Promise<{
  files: Record<string, Uint8Array>;
  imports: string[];
}> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(new URL('./worker/transpile-worker.mjs', import.meta.url), {
      workerData: { bytes },
      env: {},
      stdout: true,
      stderr: true,
      execArgv: [],
    });
    worker.stdout.resume();
    worker.stderr.resume();
    let settled = false;
    worker.once(
      'message',
      (message: { ok: boolean; message?: string; files?: never; imports?: never }) => {
        settled = true;
        void worker.terminate();
        if (message.ok) resolve({ files: message.files ?? {}, imports: message.imports ?? [] });
        else
          reject(
            new WasmError(
              WasmErrorCode.WASM_TRANSPILE_FAILED,
              `jco could not transpile the component: ${message.message ?? 'unknown error'}`,
            ),
          );
      },
    );
    worker.once('error', (error) => {
      if (settled) return;
      settled = true;
      reject(
        new WasmError(
          WasmErrorCode.WASM_TRANSPILE_FAILED,
          `the transpiler worker failed: ${error.message}`,
          { cause: error },
        ),
      );
    });
    worker.once('exit', (code) => {
      if (settled) return;
      settled = true;
      reject(
        new WasmError(
          WasmErrorCode.WASM_TRANSPILE_FAILED,
          `the transpiler worker exited with code ${code} before answering`,
        ),
      );
    });
  });
}

/**
 * A whole file in one read into a buffer of its size (fs.readFile reads 512 KiB chunks and
 * concatenates them: several times slower for a 12 MB core module). Undefined if unreadable.
 */
async function readWhole(path: string): Promise<Uint8Array | undefined> {
  let handle: FileHandle | undefined;
  try {
    handle = await open(path, 'r');
    return await readSized(handle, (await handle.stat()).size);
  } catch {
    return undefined;
  } finally {
    await handle?.close();
  }
}

/** A verified cache entry: its authenticated manifest and the bytes of every file it lists. */
interface CacheEntry {
  manifest: CacheManifest;
  /** Every file the manifest lists but the core modules of `compiled`, verified. */
  files: Map<string, Uint8Array>;
  /** This process's compiled core modules of the entry (component-compile.ts), if it holds them. */
  compiled?: { modules: Record<string, WebAssembly.Module>; memoryLimitBytes: number };
  /** The verified code cache of its glue, when an earlier process left one. */
  glueCodeCache?: Uint8Array;
}

/**
 * Reads a cache entry and verifies it: the manifest's MAC under the host's key, the transpiler
 * and digest it names, and every file against its recorded digest. Returns why it is unusable.
 * Given a memory limit under which this process compiled the core modules the manifest lists
 * (the same digests), those files are not read: the compiled modules stand for them.
 */
async function loadEntry(
  dir: string,
  sha256: string,
  key: Buffer,
  memoryLimitBytes?: number,
): Promise<CacheEntry | { problem: string }> {
  let manifest: CacheManifest;
  try {
    manifest = JSON.parse(await readFile(join(dir, MANIFEST_FILE), 'utf8')) as CacheManifest;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return { problem: code === 'ENOENT' ? 'absent' : `${MANIFEST_FILE} is unreadable` };
  }
  if (manifest.transpiler !== TRANSPILER_ID || manifest.sha256 !== sha256) {
    return { problem: 'built by another transpiler' };
  }
  let authentic = false;
  try {
    authentic = macMatches(manifestMac(key, macFields(manifest)), manifest.mac);
  } catch {
    // A malformed manifest (wrong field types) is as unusable as a forged one.
  }
  if (!authentic) return { problem: `${MANIFEST_FILE} is not authenticated by this host's key` };
  const compiled = compiledOf(manifest, memoryLimitBytes);
  const names = Object.entries(manifest.files).filter(
    ([name]) => compiled === undefined || !isCoreModule(name),
  );
  const [codeCacheFile, ...contents] = await Promise.all([
    readWhole(glueCodeCachePath(dir)),
    ...names.map(([name]) => readWhole(join(dir, name))),
  ]);
  const files = new Map<string, Uint8Array>();
  for (const [index, [name, digest]] of names.entries()) {
    const bytes = contents[index];
    if (bytes === undefined) return { problem: `${name} is missing` };
    if (sha256Hex(bytes) !== digest) return { problem: `${name} no longer matches its digest` };
    files.set(name, bytes);
  }
  const glueCodeCache = verifiedGlueCodeCache(codeCacheFile, key, manifest.files[GLUE_FILE] ?? '');
  const entry: CacheEntry = { manifest, files };
  if (glueCodeCache !== undefined) entry.glueCodeCache = glueCodeCache;
  if (compiled !== undefined) entry.compiled = compiled;
  return entry;
}

function isCoreModule(name: string): boolean {
  return name.endsWith('.wasm');
}

/** This process's compiled core modules of an authenticated manifest, under the limit. */
function compiledOf(
  manifest: CacheManifest,
  memoryLimitBytes: number | undefined,
): CacheEntry['compiled'] {
  if (memoryLimitBytes === undefined) return undefined;
  const digests: Record<string, string> = {};
  for (const [name, digest] of Object.entries(manifest.files)) {
    if (isCoreModule(name)) digests[name] = digest;
  }
  const modules = compiledCoreModules(digests, memoryLimitBytes);
  return modules === undefined ? undefined : { modules, memoryLimitBytes };
}

function checkImports(path: string, imports: readonly string[]): void {
  const refused = disallowedImports(imports);
  if (refused.length > 0) {
    throw new WasmError(
      WasmErrorCode.WASM_IMPORT_NOT_ALLOWED,
      `component ${path} imports ${refused.join(', ')}, which this host does not provide (it implements clat:plugin@0.1.0 and sandboxed WASI 0.2, no network, sockets or http)`,
      { data: { imports: refused } },
    );
  }
}

// Reads the versioned interface names from the binary (jco reports imports without versions).
function checkInterfaces(path: string, bytes: Uint8Array): string[] {
  let interfaces: ReturnType<typeof componentInterfaces>;
  try {
    interfaces = componentInterfaces(bytes);
  } catch (error) {
    throw new WasmError(
      WasmErrorCode.WASM_TRANSPILE_FAILED,
      `component ${path} is not a readable WebAssembly component: ${(error as Error).message}`,
      { cause: error },
    );
  }
  checkImports(path, interfaces.imports);
  if (!interfaces.exports.includes(TOOLS_EXPORT)) {
    const found = interfaces.exports.filter((name) => name.startsWith('clat:plugin/'));
    throw new WasmError(
      WasmErrorCode.WASM_IMPORT_NOT_ALLOWED,
      `component ${path} does not export ${TOOLS_EXPORT}${found.length > 0 ? ` (it exports ${found.join(', ')})` : ''}`,
      { data: { exports: interfaces.exports } },
    );
  }
  return interfaces.imports;
}

/**
 * The verified cache entry of an unchanged component, found without reading the component: its
 * stat signature matches an authenticated record of its digest (see source-record.ts), the
 * digest equals the pin if one is set, and the entry of that digest verifies. Undefined
 * otherwise: the caller reads and hashes the component.
 */
async function unchangedEntry(
  options: PrepareComponentOptions,
  keying: Promise<Buffer>,
): Promise<{ sha256: string; entry: CacheEntry } | undefined> {
  const sha256 = await recordedComponentDigest(options, keying);
  if (sha256 === undefined) return undefined;
  const entry = await loadEntry(
    join(options.cacheDir, sha256),
    sha256,
    await keying,
    options.memoryLimitBytes,
  );
  return 'manifest' in entry ? { sha256, entry } : undefined;
}

/**
 * Verifies and transpiles a component (or reuses the cache entry of its digest) and checks its
 * imports. Cache writes are atomic: a temporary directory renamed into place. An unchanged
 * component (same stat signature as when it was last hashed) is not read again.
 */
export async function prepareComponent(
  options: PrepareComponentOptions,
): Promise<PreparedComponent> {
  const { componentPath, cacheDir } = options;
  const keying = loadCacheKey(options.keyPath ?? cacheKeyPath(cacheDir));
  const unchanged = await unchangedEntry(options, keying);
  const key = await keying;
  if (unchanged !== undefined) {
    checkImports(componentPath, unchanged.entry.manifest.imports);
    return preparedOf(
      unchanged.sha256,
      join(cacheDir, unchanged.sha256),
      unchanged.entry,
      undefined,
    );
  }
  const { read, sha256 } = await readPinnedComponent(options);
  const { bytes } = read;
  const dir = join(cacheDir, sha256);
  const cached = await loadEntry(dir, sha256, key, options.memoryLimitBytes);
  let entry: CacheEntry;
  let transpileMs: number | undefined;
  let rebuilt: string | undefined;
  if ('manifest' in cached) {
    entry = cached;
    checkImports(componentPath, entry.manifest.imports);
  } else {
    // Absent, stale, corrupt or forged: (re)build it from the component, never trust it.
    if (cached.problem !== 'absent') rebuilt = cached.problem;
    // Refuse before transpiling, so nothing lands in the cache.
    const imports = checkInterfaces(componentPath, bytes);
    const started = performance.now();
    const result = await transpileInWorker(bytes);
    transpileMs = performance.now() - started;
    const digests: Record<string, string> = {};
    const files = new Map<string, Uint8Array>();
    for (const [name, transpiled] of Object.entries(result.files)) {
      const content = isCoreModule(name) ? widened(transpiled) : transpiled;
      digests[name] = sha256Hex(content);
      files.set(name, content);
    }
    if (digests[GLUE_FILE] === undefined) {
      throw new WasmError(
        WasmErrorCode.WASM_TRANSPILE_FAILED,
        `jco produced no ${GLUE_FILE} for component ${componentPath}`,
      );
    }
    const fields = { transpiler: TRANSPILER_ID, sha256, imports, files: digests };
    const manifest: CacheManifest = { ...fields, mac: manifestMac(key, macFields(fields)) };
    entry = { manifest, files };
    await writeEntry(cacheDir, dir, entry, key);
  }
  if (read.trusted) await recordDigest(cacheDir, key, resolve(componentPath), read.stats, sha256);
  const prepared = preparedOf(sha256, dir, entry, transpileMs);
  if (rebuilt !== undefined) prepared.rebuilt = rebuilt;
  return prepared;
}

/**
 * A core module as the cache stores it: its memory maxima written wide, so each load caps them in
 * the module's own bytes instead of copying it (memory-cap.ts). A module whose memories the cap
 * refuses (memory64) or cannot read is stored as it is: compiling it reports why, as before.
 */
function widened(module: Uint8Array): Uint8Array {
  try {
    return widenMemoryMaxima(module);
  } catch {
    return module;
  }
}

/** Writes a freshly transpiled entry atomically (a staging directory renamed into place). */
async function writeEntry(
  cacheDir: string,
  dir: string,
  entry: CacheEntry,
  key: Buffer,
): Promise<void> {
  const { manifest, files } = entry;
  await mkdir(cacheDir, { recursive: true, mode: 0o700 });
  const staging = join(cacheDir, `.${manifest.sha256}.${process.pid}.${randomUUID()}.tmp`);
  await mkdir(staging, { mode: 0o700 });
  try {
    for (const [name, content] of files) {
      await writeFile(join(staging, name), content, { mode: 0o600 });
    }
    await writeFile(join(staging, MANIFEST_FILE), `${JSON.stringify(manifest, null, 2)}\n`, {
      mode: 0o600,
    });
    await rm(dir, { recursive: true, force: true });
    await rename(staging, dir);
  } catch (error) {
    await rm(staging, { recursive: true, force: true });
    // A concurrent installer may have won the rename; its entry is equally valid. Either way
    // this process runs the bytes it just transpiled, held in memory.
    if (!('manifest' in (await loadEntry(dir, manifest.sha256, key)))) throw error;
  }
}

/** The prepared form of a verified entry; `transpileMs` undefined for a cache hit. */
function preparedOf(
  sha256: string,
  dir: string,
  entry: CacheEntry,
  transpileMs: number | undefined,
): PreparedComponent {
  const coreModules: Record<string, Uint8Array> = {};
  const coreModuleDigests: Record<string, string> = {};
  for (const [name, content] of entry.files) {
    if (!isCoreModule(name)) continue;
    coreModules[name] = content;
    // Verified: loadEntry checked the bytes against it, or it was just computed from them.
    const digest = entry.manifest.files[name];
    if (digest !== undefined) coreModuleDigests[name] = digest;
  }
  return {
    sha256,
    dir,
    imports: entry.manifest.imports,
    glueSource: new TextDecoder().decode(entry.files.get(GLUE_FILE)),
    glueSha256: entry.manifest.files[GLUE_FILE] ?? '',
    coreModules,
    coreModuleDigests,
    ...(entry.glueCodeCache === undefined ? {} : { glueCodeCache: entry.glueCodeCache }),
    ...(entry.compiled === undefined ? {} : { compiled: entry.compiled }),
    transpiled: transpileMs !== undefined,
    transpileMs: transpileMs ?? 0,
  };
}

/**
 * Install-time preparation of a component: size and SHA-256 check, jco transpilation into a
 * private cache keyed by the digest, import allowlist, memory cap and compilation. Only glue
 * that our own transpiler produced ever runs; a plugin ships a `.wasm`, never JS.
 * @module
 */
import { randomUUID } from 'node:crypto';
import { mkdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { LIMITS } from '@clat/kernel';
import { normalizeSha256, sha256Hex } from './digest.js';
import { WasmError, WasmErrorCode } from './errors.js';
import { componentInterfaces, disallowedImports, TOOLS_EXPORT } from './import-policy.js';
import { capModuleMemory, WASM_PAGE_BYTES } from './memory-cap.js';

/** Largest component accepted, checked before the file is read. */
export const MAX_COMPONENT_BYTES = 32 * 1024 * 1024;

/** Bumped whenever the transpiler or its options change, so stale cache entries rebuild. */
export const TRANSPILER_ID = 'jco-transpile@0.15.0/async/no-wasi-shim/v2';

const GLUE_FILE = 'plugin.js';
const MANIFEST_FILE = 'manifest.json';

interface CacheManifest {
  transpiler: string;
  sha256: string;
  imports: string[];
  /** File name → lowercase hex SHA-256 of its bytes. */
  files: Record<string, string>;
}

// The global WebAssembly object, typed here so consumers need no DOM lib to compile this file.
const wasm = (
  globalThis as unknown as {
    WebAssembly: { compile(bytes: Uint8Array): Promise<WebAssembly.Module> };
  }
).WebAssembly;

/** A transpiled, allowlisted component ready to compile. */
export interface PreparedComponent {
  sha256: string;
  /** The cache directory holding our glue and the core modules. */
  dir: string;
  /** Interfaces the component imports, versioned, as its binary names them. */
  imports: string[];
  /** `file:` URL of the glue module our transpiler generated. */
  glueUrl: string;
  /** Whether this call transpiled (false: served from the cache). */
  transpiled: boolean;
  /** Milliseconds spent transpiling (0 for a cache hit). */
  transpileMs: number;
}

/** The compiled core modules of a prepared component, memory-capped. */
export interface CompiledComponent extends PreparedComponent {
  modules: Record<string, WebAssembly.Module>;
  memoryLimitBytes: number;
}

/** `$CLAT_HOME` if set, else `~/.clat`. */
export function resolveClatHome(env: NodeJS.ProcessEnv = process.env): string {
  const configured = env.CLAT_HOME;
  return configured !== undefined && configured !== '' ? configured : join(homedir(), '.clat');
}

/** The private compiled-module cache under a CLAT home. */
export function wasmCacheDir(clatHome: string): string {
  return join(clatHome, 'cache', 'wasm');
}

export interface PrepareComponentOptions {
  componentPath: string;
  /** Pinned digest (`sha256:` prefix optional); a mismatch refuses the component. */
  sha256?: string | undefined;
  cacheDir: string;
}

async function readComponent(path: string): Promise<Uint8Array> {
  let size: number;
  try {
    size = (await stat(path)).size;
  } catch (error) {
    throw new WasmError(
      WasmErrorCode.WASM_COMPONENT_UNREADABLE,
      `component ${path} cannot be read: ${(error as NodeJS.ErrnoException).code ?? String(error)}`,
      { cause: error },
    );
  }
  if (size > MAX_COMPONENT_BYTES) {
    throw new WasmError(
      WasmErrorCode.WASM_COMPONENT_TOO_LARGE,
      `component ${path} is ${size} bytes, over the ${MAX_COMPONENT_BYTES}-byte limit`,
    );
  }
  return new Uint8Array(await readFile(path));
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

async function readManifest(dir: string, sha256: string): Promise<CacheManifest | undefined> {
  let manifest: CacheManifest;
  try {
    manifest = JSON.parse(await readFile(join(dir, MANIFEST_FILE), 'utf8')) as CacheManifest;
  } catch {
    return undefined;
  }
  if (manifest.transpiler !== TRANSPILER_ID || manifest.sha256 !== sha256) return undefined;
  return manifest;
}

/** Re-hashes every cached file, so a modified glue module is never imported. */
async function verifyCacheFiles(dir: string, manifest: CacheManifest): Promise<void> {
  for (const [name, digest] of Object.entries(manifest.files)) {
    let bytes: Uint8Array;
    try {
      bytes = await readFile(join(dir, name));
    } catch (error) {
      throw new WasmError(
        WasmErrorCode.WASM_CACHE_CORRUPT,
        `cache entry ${dir} is missing ${name}`,
        { cause: error },
      );
    }
    if (sha256Hex(bytes) !== digest) {
      throw new WasmError(
        WasmErrorCode.WASM_CACHE_CORRUPT,
        `cache entry ${dir} was modified: ${name} no longer matches its recorded digest`,
      );
    }
  }
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
 * Verifies and transpiles a component (or reuses the cache entry of its digest) and checks its
 * imports. Cache writes are atomic: a temporary directory renamed into place.
 */
export async function prepareComponent(
  options: PrepareComponentOptions,
): Promise<PreparedComponent> {
  const { componentPath, cacheDir } = options;
  const bytes = await readComponent(componentPath);
  const sha256 = sha256Hex(bytes);
  if (options.sha256 !== undefined) {
    const pinned = normalizeSha256(options.sha256);
    if (pinned !== sha256) {
      throw new WasmError(
        WasmErrorCode.WASM_DIGEST_MISMATCH,
        `component ${componentPath} has SHA-256 ${sha256}, but ${pinned === undefined ? `the pin ${JSON.stringify(options.sha256)} is not a SHA-256 digest` : `${pinned} is pinned`}`,
        { data: { actual: sha256, pinned: options.sha256 } },
      );
    }
  }
  const dir = join(cacheDir, sha256);
  let manifest = await readManifest(dir, sha256);
  let transpiled = false;
  let transpileMs = 0;
  if (manifest === undefined) {
    // Refuse before transpiling, so nothing lands in the cache.
    const imports = checkInterfaces(componentPath, bytes);
    const started = performance.now();
    const result = await transpileInWorker(bytes);
    transpileMs = performance.now() - started;
    transpiled = true;
    const files: Record<string, string> = {};
    for (const [name, content] of Object.entries(result.files)) files[name] = sha256Hex(content);
    if (files[GLUE_FILE] === undefined) {
      throw new WasmError(
        WasmErrorCode.WASM_TRANSPILE_FAILED,
        `jco produced no ${GLUE_FILE} for component ${componentPath}`,
      );
    }
    manifest = { transpiler: TRANSPILER_ID, sha256, imports, files };
    await mkdir(cacheDir, { recursive: true, mode: 0o700 });
    const staging = join(cacheDir, `.${sha256}.${process.pid}.${randomUUID()}.tmp`);
    await mkdir(staging, { mode: 0o700 });
    try {
      for (const [name, content] of Object.entries(result.files)) {
        await writeFile(join(staging, name), content, { mode: 0o600 });
      }
      await writeFile(join(staging, MANIFEST_FILE), `${JSON.stringify(manifest, null, 2)}\n`, {
        mode: 0o600,
      });
      await rm(dir, { recursive: true, force: true });
      await rename(staging, dir);
    } catch (error) {
      await rm(staging, { recursive: true, force: true });
      // A concurrent installer may have won the rename; its entry is equally valid.
      if ((await readManifest(dir, sha256)) === undefined) throw error;
    }
  } else {
    checkImports(componentPath, manifest.imports);
  }
  await verifyCacheFiles(dir, manifest);
  return {
    sha256,
    dir,
    imports: manifest.imports,
    glueUrl: pathToFileURL(join(dir, GLUE_FILE)).href,
    transpiled,
    transpileMs,
  };
}

/** Reads, memory-caps and compiles the core modules of a prepared component. */
export async function compileComponent(
  prepared: PreparedComponent,
  memoryLimitBytes: number = LIMITS.wasmMemoryBytes,
): Promise<CompiledComponent> {
  const maxPages = Math.floor(memoryLimitBytes / WASM_PAGE_BYTES);
  const manifest = await readManifest(prepared.dir, prepared.sha256);
  if (manifest === undefined) {
    throw new WasmError(
      WasmErrorCode.WASM_CACHE_CORRUPT,
      `cache entry ${prepared.dir} disappeared before compilation`,
    );
  }
  const modules: Record<string, WebAssembly.Module> = {};
  for (const [name, digest] of Object.entries(manifest.files)) {
    if (!name.endsWith('.wasm')) continue;
    const bytes = new Uint8Array(await readFile(join(prepared.dir, name)));
    if (sha256Hex(bytes) !== digest) {
      throw new WasmError(
        WasmErrorCode.WASM_CACHE_CORRUPT,
        `cache entry ${prepared.dir} was modified: ${name} no longer matches its recorded digest`,
      );
    }
    const capped = capModuleMemory(bytes, maxPages);
    modules[name] = await wasm.compile(capped.bytes);
  }
  return { ...prepared, modules, memoryLimitBytes };
}

/**
 * V8's code cache of a component's glue script (worker/glue-script.mjs), kept beside its cache
 * entry as `plugin.js.v8cache`, so a fresh process's guest worker need not parse and compile the
 * 420 KB glue again (about 30 ms of its start on Node 20).
 *
 * V8 runs the bytecode of a code cache it accepts, and checks little of it itself (its version,
 * its flags, the source's length), so the file is trusted only as the entry's manifest is: a MAC
 * under the cache key (kept outside the cache directory) over the glue's verified digest, the
 * script version, the V8 version and architecture, and the cache bytes' digest. Anything else (a
 * changed byte, another glue, another V8, a copied file) is not used: the worker compiles the
 * glue from source and makes a new cache, which replaces the file. A cache is an optimisation
 * only: reading or writing one never fails a load.
 *
 * File: one line of JSON (`{ v8, arch, glue, script, data, mac }`), then the cache bytes.
 * @module
 */
import { join } from 'node:path';
import { writeFileAtomic } from '@clat/node-files';
import { cacheKeyPath, loadCacheKey, macMatches, manifestMac } from './cache-key.js';
import { sha256Hex } from './digest.js';
import { GLUE_SCRIPT_VERSION } from './worker/glue-script.mjs';

export const GLUE_CODE_CACHE_FILE = 'plugin.js.v8cache';
/** Larger files are not read: a code cache of the pinned jco's glue is about 300 KB. */
const MAX_CODE_CACHE_BYTES = 16 * 1024 * 1024;
const NEWLINE = 0x0a;

interface Header {
  v8: string;
  arch: string;
  /** SHA-256 of the glue file, as the entry's manifest lists it. */
  glue: string;
  script: string;
  /** SHA-256 of the cache bytes. */
  data: string;
  mac: string;
}

function macOf(key: Buffer, header: Omit<Header, 'mac'>): string {
  // The first field keeps a manifest's MAC from ever verifying as a code cache's, and back.
  return manifestMac(key, [
    'glue-code-cache',
    header.v8,
    header.arch,
    header.glue,
    header.script,
    header.data,
  ]);
}

/** The code cache file of the entry in directory `dir`. */
export function glueCodeCachePath(dir: string): string {
  return join(dir, GLUE_CODE_CACHE_FILE);
}

/**
 * The cache bytes of a code cache file's contents, when it was made by this V8 for the glue of
 * digest `glueSha256` and is authenticated by `key`; undefined when it is not usable.
 */
export function verifiedGlueCodeCache(
  file: Uint8Array | undefined,
  key: Buffer,
  glueSha256: string,
): Uint8Array | undefined {
  if (file === undefined || file.length > MAX_CODE_CACHE_BYTES) return undefined;
  const end = file.indexOf(NEWLINE);
  if (end < 0) return undefined;
  let header: Header;
  try {
    header = JSON.parse(new TextDecoder().decode(file.subarray(0, end))) as Header;
  } catch {
    return undefined;
  }
  if (
    typeof header !== 'object' ||
    header === null ||
    header.v8 !== process.versions.v8 ||
    header.arch !== process.arch ||
    header.glue !== glueSha256 ||
    header.script !== GLUE_SCRIPT_VERSION
  ) {
    return undefined;
  }
  const data = file.subarray(end + 1);
  let authentic = false;
  try {
    authentic = header.data === sha256Hex(data) && macMatches(macOf(key, header), header.mac);
  } catch {
    // Fields of the wrong types: as unusable as a forged header.
  }
  return authentic ? data : undefined;
}

export interface SaveGlueCodeCacheOptions {
  /** The component cache directory (`<clatHome>/cache/wasm`): its key file authenticates. */
  cacheDir: string;
  /** The entry directory of the component (`PreparedComponent.dir`). */
  dir: string;
  glueSha256: string;
  /** The cache V8 made of the glue script (`vm.Script#createCachedData`). */
  data: Uint8Array;
}

/**
 * Writes a glue code cache atomically (0600, renamed into place, not synced: it is rebuilt when lost).
 * Never throws: a cache that cannot be written only means the next process compiles the glue again.
 */
export async function saveGlueCodeCache(options: SaveGlueCodeCacheOptions): Promise<void> {
  const { data } = options;
  try {
    const key = await loadCacheKey(cacheKeyPath(options.cacheDir));
    const fields = {
      v8: process.versions.v8,
      arch: process.arch,
      glue: options.glueSha256,
      script: GLUE_SCRIPT_VERSION,
      data: sha256Hex(data),
    };
    const header: Header = { ...fields, mac: macOf(key, fields) };
    await writeFileAtomic(
      glueCodeCachePath(options.dir),
      Buffer.concat([Buffer.from(`${JSON.stringify(header)}\n`), data]),
      { mode: 0o600, sync: false },
    );
  } catch {
    // Not written: the next process compiles the glue and makes one.
  }
}

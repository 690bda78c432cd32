/**
 * V8's code cache of a component's glue script (worker/glue-script.mjs), kept beside its cache
 * entry as `plugin.js.<tag>.v8cache`, so a fresh process's guest worker need not parse and
 * compile the 420 KB glue again (about 30 ms of its start on Node 20).
 *
 * V8 takes a code cache only under the V8 version, flags and CPU features it was made with, which
 * `v8.cachedDataVersionTag()` sums up: the file name carries that tag. Processes that run under
 * different V8 flags (the `clat` binary's one-shot commands and its session, apps/clat
 * bin-v8-flags.ts) each keep a cache of their own, instead of each rejecting the other's and
 * writing its own in its place at every start. A write removes the untagged file older versions
 * wrote and keeps at most four tagged ones (the oldest go first).
 *
 * V8 runs the bytecode of a code cache it accepts, and checks little of it itself (its version,
 * its flags, the source's length), so the file is trusted only as the entry's manifest is: a MAC
 * under the cache key (kept outside the cache directory) over the glue's verified digest, the
 * script version, the V8 version, tag and architecture, and the cache bytes' digest. Anything
 * else (a changed byte, another glue, another V8, a copied file) is not used: the worker compiles
 * the glue from source and makes a new cache, which replaces the file. A cache is an
 * optimisation only: reading or writing one never fails a load.
 *
 * File: one line of JSON (`{ v8, tag, arch, glue, script, data, mac }`), then the cache bytes.
 * @module
 */
import { readdir, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { cachedDataVersionTag } from 'node:v8';
import { writeFileAtomic } from '@clat/node-files';
import { cacheKeyPath, loadCacheKey, macMatches, manifestMac } from './cache-key.js';
import { sha256Hex } from './digest.js';
import { GLUE_SCRIPT_VERSION } from './worker/glue-script.mjs';

/** Larger files are not read: a code cache of the pinned jco's glue is about 300 KB. */
const MAX_CODE_CACHE_BYTES = 16 * 1024 * 1024;
const NEWLINE = 0x0a;
/** A glue code cache's file name: tagged, or untagged as versions before the tag wrote it. */
const CODE_CACHE_NAME = /^plugin\.js\.(?:([0-9a-f]{1,8})\.)?v8cache$/;
/** Tagged caches an entry keeps at most: one per V8 version and flag set that ran it lately. */
const MAX_CODE_CACHES = 4;

interface Header {
  v8: string;
  /** `v8.cachedDataVersionTag()` in hex: the V8 version, flags and CPU features V8 checks. */
  tag: string;
  arch: string;
  /** SHA-256 of the glue file, as the entry's manifest lists it. */
  glue: string;
  script: string;
  /** SHA-256 of the cache bytes. */
  data: string;
  mac: string;
}

/** This process's code cache tag: read at each use, as V8 flags set at run time change it. */
function v8Tag(): string {
  return cachedDataVersionTag().toString(16);
}

function macOf(key: Buffer, header: Omit<Header, 'mac'>): string {
  // The first field keeps a manifest's MAC from ever verifying as a code cache's, and back.
  return manifestMac(key, [
    'glue-code-cache',
    header.v8,
    header.tag,
    header.arch,
    header.glue,
    header.script,
    header.data,
  ]);
}

/** The code cache file of the entry in directory `dir` for this process's V8 and its flags. */
export function glueCodeCachePath(dir: string): string {
  return join(dir, `plugin.js.${v8Tag()}.v8cache`);
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
    header.tag !== v8Tag() ||
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
      tag: v8Tag(),
      arch: process.arch,
      glue: options.glueSha256,
      script: GLUE_SCRIPT_VERSION,
      data: sha256Hex(data),
    };
    const header: Header = { ...fields, mac: macOf(key, fields) };
    const path = glueCodeCachePath(options.dir);
    await writeFileAtomic(path, Buffer.concat([Buffer.from(`${JSON.stringify(header)}\n`), data]), {
      mode: 0o600,
      sync: false,
    });
    await pruneGlueCodeCaches(options.dir, path);
  } catch {
    // Not written (or not pruned): the next process compiles the glue and makes one.
  }
}

/**
 * Removes the entry's untagged glue code cache and its tagged ones beyond the newest
 * `MAX_CODE_CACHES` (the one just written, `kept`, among them). A file another process removed
 * meanwhile is gone either way.
 */
async function pruneGlueCodeCaches(dir: string, kept: string): Promise<void> {
  const others: { name: string; mtimeMs: number }[] = [];
  const stale: string[] = [];
  for (const name of await readdir(dir)) {
    const match = CODE_CACHE_NAME.exec(name);
    if (match === null || join(dir, name) === kept) continue;
    if (match[1] === undefined) stale.push(name);
    else
      others.push({
        name,
        mtimeMs: (await stat(join(dir, name)).catch(() => undefined))?.mtimeMs ?? 0,
      });
  }
  others.sort((a, b) => b.mtimeMs - a.mtimeMs);
  for (const { name } of others.slice(MAX_CODE_CACHES - 1)) stale.push(name);
  await Promise.all(stale.map((name) => rm(join(dir, name), { force: true })));
}

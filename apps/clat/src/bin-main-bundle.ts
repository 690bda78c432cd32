/**
 * Loads the binary's main bundle (dist/bin/main.cjs) through V8's code cache. Compiling the
 * bundle's source was the largest part of a `clat tools` start, and Node 20 has no compile cache
 * of its own (`module.enableCompileCache` came in Node 22.1), so the bundle is one CommonJS file
 * compiled with `vm.Script`, whose code cache V8 can write and take back.
 *
 * There is one cache per command (its first word: `tools`, `call`, `mcp`, ...), written once per
 * build after that command first ran, so the functions it compiled lazily are in it too. V8
 * deserialises a whole cache at every start, so one cache for all commands would cost each
 * command the others' functions (measured on the bench VM: `clat trust` 6–11 ms slower with the
 * cache `clat tools` left), and a cache left by whichever command ran first would leave the
 * others compiling most of their code from source (`clat tools` 12–14 ms slower with the cache
 * `clat trust` left). The cache files go to `<clat home>/cache/code/`: the user's own 0700 home,
 * never a shared temp directory, because V8 runs cached bytecode it accepts. V8 itself rejects a
 * cache from another V8 version, other V8 flags or a source of another length; the file name
 * carries the bundle's build id (its SHA-256, appended at build time) so a same-length rebuild
 * never takes an old cache, and a cache directory or file another user could write (or a link)
 * is never used. A cache is an optimisation only: any failure loads from source.
 * `NODE_DISABLE_COMPILE_CACHE` (Node's own switch for its compile cache) turns it off.
 * @module
 */
import { isAscii } from 'node:buffer';
import {
  closeSync,
  constants as fsConstants,
  fstatSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  type Stats,
  statSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { Script, constants as vmConstants } from 'node:vm';
import { resolveClatHome } from './config/clat-home.js';

/** The trailer tsup.bin.config.ts appends: the SHA-256 of everything before it, 16 hex digits. */
const BUILD_ID = /\n\/\/# clatBuildId=([0-9a-f]{16})\n?$/;

/** The CommonJS module wrapper, on a line of its own so the bundle's line numbers stay true. */
const WRAPPER_HEAD = '(function (exports, require, module, __filename, __dirname) {\n';
const WRAPPER_TAIL = '\n})';

/** A command word that may name a cache file; any other first word shares the cache `other`. */
const COMMAND_WORD = /^[a-z][a-z0-9-]{0,31}$/;

/**
 * At most this many cache files stay in the directory: a write removes the oldest beyond it, so
 * mistyped commands (each one a name of its own) cannot fill the disk. Each file is 0.3–1 MB.
 */
const MAX_CACHE_FILES = 16;

/**
 * The command `clat argv` runs, as main() dispatches it (main.ts): `version`, `help`, `session`
 * (bare `clat` or session flags only, on a terminal), the first word, or `other`. Bare `clat`
 * without a terminal prints the help. Its code cache and its V8 flags (bin-v8-flags.ts) follow
 * from it, so it is only ever a word a file name can hold.
 * @public bin/clat.js calls it from the built dist/early/boot.cjs
 */
export function dispatchedCommand(argv: readonly string[], stdinIsTerminal: () => boolean): string {
  const first = argv[0];
  if (first === '--version' || first === '-V') return 'version';
  if (first === '--help' || first === '-h') return 'help';
  if (first === undefined) return stdinIsTerminal() ? 'session' : 'help';
  if (first.startsWith('-')) return stdinIsTerminal() ? 'session' : 'other';
  return COMMAND_WORD.test(first) ? first : 'other';
}

/** The code cache directory under a CLAT home. */
export function codeCacheDir(clatHome: string): string {
  return join(clatHome, 'cache', 'code');
}

export interface LoadedBundle<T> {
  exports: T;
  /** The cache file this load read or will write; undefined when caching is off for this run. */
  cacheFile: string | undefined;
  /** What happened to the cache: `accepted`, `rejected` (V8 refused it), `missing` or `off`. */
  cache: 'accepted' | 'rejected' | 'missing' | 'off';
  /**
   * Writes the code cache when this load could not use one. Call it after the command ran: the
   * functions it compiled lazily go into the cache too. Never throws.
   */
  saveCodeCache(): void;
}

/**
 * Compiles and runs the CommonJS bundle at `bundlePath`, with the code cache its build left for
 * `command` (as `dispatchedCommand` names it) when there is one. Throws only what loading the
 * bundle from source would throw.
 * @public bin/clat.js loads dist/bin/main.cjs with it (through dist/early/boot.cjs)
 */
export function loadMainBundle<T>(
  bundlePath: string,
  env: NodeJS.ProcessEnv,
  cwd: string,
  command: string,
): LoadedBundle<T> {
  const bytes = readFileSync(bundlePath);
  // esbuild writes ASCII (non-ASCII characters escaped): decoding it as Latin-1 is a plain copy,
  // about half the cost of UTF-8 decoding for the 1 MB bundle; anything else decodes as UTF-8.
  const source = isAscii(bytes) ? bytes.toString('latin1') : bytes.toString('utf8');
  let cacheFile = cacheFileFor(source, env, cwd, command);
  let cachedData: Buffer | undefined;
  if (cacheFile !== undefined) {
    const dirs = cacheDirsState(dirname(cacheFile));
    if (dirs === 'foreign') cacheFile = undefined;
    else if (dirs === 'private') cachedData = readPrivateFile(cacheFile);
  }
  const script = new Script(WRAPPER_HEAD + source + WRAPPER_TAIL, {
    filename: bundlePath,
    lineOffset: -1,
    ...(cachedData === undefined ? {} : { cachedData }),
    // The bundle imports nothing dynamically from outside itself; should that change, import()
    // resolves as it would in a module loaded by require().
    ...(vmConstants?.USE_MAIN_CONTEXT_DEFAULT_LOADER === undefined
      ? {}
      : { importModuleDynamically: vmConstants.USE_MAIN_CONTEXT_DEFAULT_LOADER }),
  });
  const cache =
    cacheFile === undefined
      ? 'off'
      : cachedData === undefined
        ? 'missing'
        : script.cachedDataRejected === true
          ? 'rejected'
          : 'accepted';
  const module = { exports: {} as T };
  const wrapper = script.runInThisContext() as (
    exports: unknown,
    require: NodeJS.Require,
    module: { exports: T },
    filename: string,
    dirname: string,
  ) => void;
  wrapper(module.exports, createRequire(bundlePath), module, bundlePath, dirname(bundlePath));
  let saved = cache === 'accepted' || cache === 'off';
  return {
    exports: module.exports,
    cacheFile,
    cache,
    saveCodeCache() {
      if (saved || cacheFile === undefined) return;
      saved = true;
      writeCache(cacheFile, script);
    },
  };
}

/**
 * `<clat home>/cache/code/<build id>-<node version>-<arch>-<flags>-<command>.bin`, or undefined
 * when the cache is off: switched off, a bundle without a build id (not built by
 * tsup.bin.config.ts), or no CLAT home yet (a first `clat --version` does not create one).
 */
function cacheFileFor(
  source: string,
  env: NodeJS.ProcessEnv,
  cwd: string,
  command: string,
): string | undefined {
  if (env.NODE_DISABLE_COMPILE_CACHE !== undefined && env.NODE_DISABLE_COMPILE_CACHE !== '') {
    return undefined;
  }
  const buildId = BUILD_ID.exec(source.slice(-64))?.[1];
  if (buildId === undefined) return undefined;
  let home: string;
  try {
    // No home to be found (HOME empty, no passwd entry): the command itself says so; no cache.
    home = resolveClatHome(env, cwd).dir;
    if (!statSync(home).isDirectory()) return undefined;
  } catch {
    return undefined;
  }
  // V8 refuses a cache made under other V8 flags; one file per flag set keeps two ways of running
  // clat from rewriting each other's cache at every start.
  const flags = fnv1a(`${process.execArgv.join(' ')}\0${env.NODE_OPTIONS ?? ''}`);
  return join(
    codeCacheDir(home),
    `${buildId}-${process.version}-${process.arch}-${flags.toString(16)}-${command}.bin`,
  );
}

/**
 * Whether `<home>/cache` and `<home>/cache/code` are this user's own directories that nobody
 * else may write (`absent` when one does not exist yet). V8 runs the bytecode it accepts, so a
 * cache in a place another user can write is never read nor written.
 */
function cacheDirsState(codeDir: string): 'private' | 'absent' | 'foreign' {
  for (const dir of [dirname(codeDir), codeDir]) {
    let stats: Stats;
    try {
      stats = lstatSync(dir);
    } catch {
      return 'absent';
    }
    if (!stats.isDirectory() || !ownedByUser(stats)) return 'foreign';
  }
  return 'private';
}

/** This user's file, writable by nobody else and not a symbolic link. */
function ownedByUser(stats: Stats): boolean {
  const uid = process.getuid?.();
  return uid === undefined || (stats.uid === uid && (stats.mode & 0o022) === 0);
}

/** The cache file's bytes, or undefined when it is missing, a link or not the user's own. */
function readPrivateFile(file: string): Buffer | undefined {
  let fd: number;
  try {
    fd = openSync(file, fsConstants.O_RDONLY | (fsConstants.O_NOFOLLOW ?? 0));
  } catch {
    // No cache yet (or a link, refused by O_NOFOLLOW): compile from source, write one afterwards.
    return undefined;
  }
  try {
    const stats = fstatSync(fd);
    return stats.isFile() && ownedByUser(stats) ? readFileSync(fd) : undefined;
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}

/**
 * Whether process `pid` runs (EPERM: it does, as another user's). `@clat/node-files` has the same
 * check, but this file is the binary's boot path, which imports nothing of the workspace.
 */
function processRuns(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** A short, cheap string hash for a file name (node:crypto alone would cost a start ~2 ms). */
function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash;
}

/**
 * Writes the cache beside its final name and renames it into place (a concurrent `clat` reads
 * the old file or the new, never half of one), then removes the caches of other builds and the
 * oldest ones beyond MAX_CACHE_FILES.
 */
function writeCache(cacheFile: string, script: Script): void {
  const dir = dirname(cacheFile);
  const temp = `${cacheFile}.${process.pid}.tmp`;
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    // mkdir leaves a directory that already existed as it was: write only into private ones.
    if (cacheDirsState(dir) !== 'private') return;
    const data = script.createCachedData();
    const fd = openSync(temp, 'w', 0o600);
    try {
      // writeFileSync retries a short write (a disk filling up) until it fails: no truncated
      // cache is renamed into place, as after a single writeSync.
      writeFileSync(fd, data);
    } finally {
      closeSync(fd);
    }
    renameSync(temp, cacheFile);
    const mine = cacheFile.slice(dir.length + 1);
    const buildPrefix = `${mine.split('-')[0]}-`;
    const kept: { name: string; mtimeMs: number }[] = [];
    for (const name of readdirSync(dir)) {
      if (name.endsWith('.tmp')) {
        // A cache half-written by a `clat` killed before its rename (SIGKILL, a closed terminal).
        const writer = Number(/\.bin\.(\d+)\.tmp$/.exec(name)?.[1] ?? 0);
        if (writer > 0 && writer !== process.pid && !processRuns(writer)) {
          rmSync(join(dir, name), { force: true });
        }
        continue;
      }
      if (!name.endsWith('.bin')) continue;
      if (!name.startsWith(buildPrefix)) rmSync(join(dir, name), { force: true });
      else if (name !== mine) {
        // Another `clat` may be pruning too: a file gone meanwhile counts as the oldest.
        const stats = lstatSync(join(dir, name), { throwIfNoEntry: false });
        kept.push({ name, mtimeMs: stats?.mtimeMs ?? 0 });
      }
    }
    kept.sort((a, b) => b.mtimeMs - a.mtimeMs);
    for (const { name } of kept.slice(MAX_CACHE_FILES - 1))
      rmSync(join(dir, name), { force: true });
  } catch {
    // A read-only or full disk costs the next start its cache, nothing else.
    try {
      rmSync(temp, { force: true });
    } catch {
      // Nothing was written, or nothing can be removed: either way nothing to do.
    }
  }
}

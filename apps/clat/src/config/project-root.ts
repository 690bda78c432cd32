/**
 * Which project a directory belongs to. Started in a subdirectory (`repo/src`), CLAT uses the
 * project around it, as git finds its repository: the nearest directory, from the start upwards,
 * that is trusted (trust.json) or holds a project server file (`.clat/mcp.json`). When none does,
 * the start itself is the project, as before.
 *
 * A project file above the start counts only in a directory that not everyone may write to (so
 * not in `/tmp`) and whose `.clat` is the user's own. The walk never reaches the user's home
 * directory or the filesystem root: a home trusted once, or holding the CLAT home
 * (`~/.clat/mcp.json` is the user's file, not a project's), must not make every directory below
 * it one project. Either still counts when CLAT starts in it.
 *
 * Synchronous and light (node:fs, node:path, node:os only): the boot bundle's prestart resolves
 * the same root before anything else loads.
 * @module
 */
import { existsSync, lstatSync, realpathSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';

/** The real path of `path`, or `path` itself when it cannot be resolved (it does not exist). */
export function realOrSelf(path: string): string {
  try {
    return realpathSync.native(path);
  } catch {
    return path;
  }
}

/**
 * Whether `dir` holds a project server file that is not the CLAT home's own `mcp.json`.
 * `clatHome` is a getter so one walk resolves the CLAT home's real path once, and only when a
 * `.clat/mcp.json` is found.
 */
function holdsProjectFile(dir: string, clatHome: () => string): boolean {
  const clat = join(dir, '.clat');
  return existsSync(join(clat, 'mcp.json')) && realOrSelf(clat) !== clatHome();
}

/**
 * Whether a directory above the start may be the project: not writable by everyone (`/tmp`), and
 * its `.clat`, when present, the user's own. Otherwise anyone could put a `.clat/mcp.json` in a
 * shared directory above someone's work and have it become their project (`--trust` would start
 * its servers). Where the platform has no user ids, nothing is refused.
 */
function mayOwnProject(dir: string): boolean {
  const uid = process.getuid?.();
  if (uid === undefined) return true;
  try {
    if ((lstatSync(dir).mode & 0o002) !== 0) return false;
    const clat = lstatSync(join(dir, '.clat'), { throwIfNoEntry: false });
    return clat === undefined || clat.uid === uid;
  } catch {
    return false;
  }
}

/**
 * The project root for `start` (an absolute, symlink-free directory: trust-store's
 * `canonicalProjectRoot`), given which roots are trusted and where the CLAT home is.
 */
export function findProjectRoot(
  start: string,
  isTrusted: (dir: string) => boolean,
  clatHomeDir: string,
): string {
  let realClatHome: string | undefined;
  const clatHome = (): string => {
    realClatHome ??= realOrSelf(clatHomeDir);
    return realClatHome;
  };
  if (isTrusted(start) || holdsProjectFile(start, clatHome)) return start;
  const home = realOrSelf(homedir());
  // Up to, not including, the home directory or the filesystem root.
  for (let dir = dirname(start); dir !== home && dir !== dirname(dir); dir = dirname(dir)) {
    if (isTrusted(dir)) return dir;
    if (holdsProjectFile(dir, clatHome) && mayOwnProject(dir)) return dir;
  }
  return start;
}

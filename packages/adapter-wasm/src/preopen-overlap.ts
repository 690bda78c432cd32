/**
 * Which directories may become preopens: none that contains, or sits inside, a directory the host
 * owns (the CLAT home with its keys and grants, the module cache with the glue it imports).
 * Compared by real path in both directions, so a symlinked home, project or `dirs` entry cannot
 * hide an overlap. (Links inside a preopen that lead into the home are refused by the sandbox,
 * which never resolves a path outside its preopen.)
 * @module
 */
import { realpathSync } from 'node:fs';
import { basename, dirname, join, resolve, sep } from 'node:path';

function isInsideOrEqual(parent: string, child: string): boolean {
  return child === parent || child.startsWith(parent.endsWith(sep) ? parent : parent + sep);
}

/**
 * The real path of `path`, or, when it does not exist yet (a CLAT home before first use), the
 * real path of its nearest existing ancestor joined with the rest.
 */
export function realPathOrNearest(path: string): string {
  const absolute = resolve(path);
  const rest: string[] = [];
  let probe = absolute;
  for (;;) {
    try {
      return join(realpathSync(probe), ...rest);
    } catch {
      const parent = dirname(probe);
      if (parent === probe) return absolute;
      rest.unshift(basename(probe));
      probe = parent;
    }
  }
}

/** A predicate: does `dir` overlap any of the `owned` directories, by real path? */
export function overlapsOwned(owned: readonly string[]): (dir: string) => boolean {
  const realOwned = owned.map(realPathOrNearest);
  return (dir) => {
    const real = realPathOrNearest(dir);
    return realOwned.some((own) => isInsideOrEqual(real, own) || isInsideOrEqual(own, real));
  };
}

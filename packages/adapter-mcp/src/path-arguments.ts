/**
 * Whether an entry's arguments name paths: the directories a server such as server-filesystem
 * serves are given there, and such a server narrows itself to the MCP roots once offered them.
 * Status hints at `"roots": false` only for those entries; a server of `node dist/index.js stdio`
 * names no directory the roots could replace.
 * @module
 */

/** Absolute (`/srv`, `C:\x`), home (`~/x`) or relative (`.`, `./x`, `../x`) paths. */
const PATH_START = /^(?:\/|[A-Za-z]:[\\/]|~(?:[\\/]|$)|\.{1,2}(?:[\\/]|$))/;

/** The program file an interpreter runs (`/x/dist/index.js`): a path, but no directory to serve. */
const PROGRAM_FILE = /\.(?:[cm]?[jt]s|py|rb|pl|php|jar|sh|exe)$/i;

/** True when `word`, or an option's value (`--root=/srv`), looks like a path other than a program. */
function namesPath(word: string): boolean {
  let value = word;
  if (word.startsWith('-')) {
    const equals = word.indexOf('=');
    if (equals === -1) return false;
    value = word.slice(equals + 1);
  }
  return PATH_START.test(value) && !PROGRAM_FILE.test(value);
}

/** True when one of a stdio entry's arguments looks like a path (see {@link namesPath}). */
export function argumentsNamePaths(args: readonly string[] | undefined): boolean {
  return args?.some(namesPath) === true;
}

/**
 * The temporary sibling a whole-file write goes through. It lives in the target's own directory
 * (a rename or link never crosses file systems) and is hidden (a project's watchers and listings
 * pass it over). Its name ends in random bytes, so nothing can be planted under it beforehand;
 * it is created exclusively anyway, so a planted file or link is never written through.
 * @module
 */
import { randomBytes } from 'node:crypto';
import { basename, dirname, join } from 'node:path';
import { processAlive } from './process-alive.js';

/** `<dir>/.<name>.<pid>.<16 random hex digits>.tmp`; the pid tells whose leftover it is. */
export function tempPathFor(path: string): string {
  const random = randomBytes(8).toString('hex');
  return join(dirname(path), `.${basename(path)}.${process.pid}.${random}.tmp`);
}

/**
 * True when `entry` (a name in a directory) is a temporary sibling of the file named `name`: what
 * a crash between creating and renaming (or linking) leaves, for a recovery sweep to remove.
 */
export function isTempFileOf(entry: string, name: string): boolean {
  return entry.startsWith(`.${name}.`) && entry.endsWith('.tmp');
}

/**
 * The file a temporary sibling made by {@link tempPathFor} stands for (`<dir>/<name>`), so an
 * error about the sibling can name the file a person knows; undefined for any other path.
 */
export function tempFileTarget(path: string): string | undefined {
  const name = /^\.(.+)\.\d+\.[0-9a-f]{16}\.tmp$/.exec(basename(path))?.[1];
  return name === undefined ? undefined : join(dirname(path), name);
}

/** The pid in a temporary sibling's name ({@link tempPathFor}); undefined when it has none. */
export function tempFileWriter(entry: string, name: string): number | undefined {
  const digits = entry.slice(name.length + 2).split('.')[0] ?? '';
  return /^[1-9]\d{0,9}$/.test(digits) ? Number(digits) : undefined;
}

/**
 * True when `entry` is a temporary sibling of `name` whose writer (the pid in its name) no longer
 * runs: a leftover a sweep may remove. A live writer's is not, even another process's: it may be
 * between writing it and renaming or linking it into place.
 */
export function isAbandonedTempFileOf(entry: string, name: string): boolean {
  if (!isTempFileOf(entry, name)) return false;
  const writer = tempFileWriter(entry, name);
  return writer !== undefined && writer !== process.pid && !processAlive(writer);
}

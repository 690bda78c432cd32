/** A path as a line of output shows it. @module */
import { sanitizeTerminalLine } from '@clat/kernel';

/**
 * `path` as it is when it prints as itself on one line, else JSON-quoted and sanitised
 * (`"/tmp/nl\n/root/secret"`): a newline in a directory's name must not make one path read as
 * two lines, such as two trusted roots in `clat trust --list`.
 */
export function shownPath(path: string): string {
  return sanitizeTerminalLine(path) === path ? path : sanitizeTerminalLine(JSON.stringify(path));
}

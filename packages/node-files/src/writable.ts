/**
 * Why a directory takes no writes, in words a person can act on. A read-only file system answers
 * a recursive mkdir with ENOENT for the first missing part, and "ENOENT" sends people looking for
 * a missing directory: the refusal of the nearest directory that exists says what is wrong.
 * @module
 */
import { accessSync, constants } from 'node:fs';
import { dirname } from 'node:path';

/**
 * Why nothing can be created in `dir` (the directory itself or, when it does not exist yet, the
 * nearest parent that does): `<that dir> is on a read-only file system` or `<that dir> is not
 * writable`; undefined when it is writable or the reason is none of those.
 */
export function whyNotWritable(dir: string): string | undefined {
  let at = dir;
  for (;;) {
    try {
      accessSync(at, constants.W_OK);
      return undefined;
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOENT' && dirname(at) !== at) at = dirname(at);
      else if (code === 'EROFS') return `${at} is on a read-only file system`;
      else if (code === 'EACCES' || code === 'EPERM') return `${at} is not writable`;
      else return undefined;
    }
  }
}

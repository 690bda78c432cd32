/**
 * Where a write to one of CLAT's settings files lands. People keep `~/.clat/mcp.json` in a
 * dotfiles repository and link it into place; replacing the link with a new file (what a rename
 * over the path does) silently forked their settings: the next `clat mcp add` went into a file the
 * repository no longer saw.
 * @module
 */
import { lstat, readlink, realpath } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { CliError, CliErrorCode } from '../errors.js';

/** As many links as Linux follows before ELOOP. */
const MAX_LINKS = 40;

/**
 * `file` itself, or, when it is a symbolic link, the file at the end of its chain of links (which
 * need not exist yet: a link to a file not yet created is written through, as a shell's `>` does).
 */
export async function linkTarget(file: string): Promise<string> {
  let path = file;
  for (let hops = 0; hops < MAX_LINKS; hops += 1) {
    let isLink: boolean;
    try {
      isLink = (await lstat(path)).isSymbolicLink();
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return path;
      throw error;
    }
    if (!isLink) return path;
    // Against the link's real directory, as the kernel resolves it: `../x` from a directory
    // reached through a link is not `../x` of the path as written.
    path = resolve(await realpath(dirname(path)), await readlink(path));
  }
  throw new CliError(
    CliErrorCode.CLI_CONFIG_INVALID,
    `${file}: more than ${MAX_LINKS} symbolic links in a row (a loop?); point it at a file`,
  );
}

/**
 * The target `file` links to when it is a symbolic link (of any chain) to a file that does not
 * exist; undefined for a plain file, a missing one, or a link to an existing file.
 */
export async function danglingLinkTarget(file: string): Promise<string | undefined> {
  const target = await linkTarget(file);
  if (target === file) return undefined;
  return lstat(target).then(
    () => undefined,
    (error: NodeJS.ErrnoException) => (error.code === 'ENOENT' ? target : undefined),
  );
}

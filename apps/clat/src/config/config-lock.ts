/**
 * One edit at a time for CLAT's own config files (mcp.json, trust.json, approvals.json). Each
 * edit reads the file, changes it and renames a new copy over it; two processes doing that at
 * once (a script running `clat mcp add` in parallel, two sessions approving tools) each wrote
 * what they had read, and the last rename silently dropped the other's change.
 * @module
 */
import { mkdir, stat } from 'node:fs/promises';
import { dirname } from 'node:path';
import { type FileLockBusy, withFileLock } from '@clat/node-files';
import { CliError, CliErrorCode } from '../errors.js';
import { replaceResolvedFile } from './atomic-write.js';
import { linkTarget } from './link-target.js';

/**
 * An edit takes milliseconds: a lock whose process is gone is taken over at once, and a live
 * holder that keeps it for 20 s (stopped with Ctrl-Z, hung) is reported, never taken over (its
 * write, when it goes on, would drop the change made meanwhile). A lock that names no process (a
 * file left by hand) is taken over after 10 s.
 */
const WAIT_MS = 20_000;
const STALE_MS = 10_000;

function busyError(file: string, busy: FileLockBusy): never {
  const holder = busy.pid === undefined ? 'another process' : `process ${busy.pid}`;
  throw new CliError(
    CliErrorCode.CLI_CONFIG_BUSY,
    `${file}: ${holder} kept it locked for ${WAIT_MS / 1000} s (${busy.path}); retry once it has finished (a clat stopped with Ctrl-Z goes on with "fg"), or delete the lock file if no clat process is running`,
  );
}

/** Writes the edited file's new text (mode 0600 unless given), if the lock is still held. */
export type CommitEdit = (text: string, mode?: number) => Promise<void>;

/**
 * Runs `edit` (read, change, then `commit` the new text of `file`) while holding `<file>.lock`,
 * so a concurrent edit by another clat process reads the result of this one instead of the file
 * before it. For a linked file the lock sits beside the file it points to, which every link to it
 * shares. `commit` writes nothing when the lock is no longer this process's (its file was removed
 * or replaced by hand meanwhile): another process may then have changed the file after this edit
 * read it, and writing would drop that change while both commands said they succeeded.
 */
export async function editConfigFile<T>(
  file: string,
  edit: (commit: CommitEdit) => Promise<T>,
): Promise<T> {
  const target = await linkTarget(file);
  if (target === file) await mkdir(dirname(target), { recursive: true, mode: 0o700 });
  else if (!(await isDirectory(dirname(target)))) {
    // A link left from another machine or a moved dotfiles checkout: creating its target's
    // directories would scatter CLAT's settings into a tree nobody chose.
    throw new CliError(
      CliErrorCode.CLI_CONFIG_INVALID,
      `${file} is a link to ${target}, whose directory does not exist; create ${dirname(target)} or point the link at an existing file`,
    );
  }
  return withFileLock(
    `${target}.lock`,
    { waitMs: WAIT_MS, staleMs: STALE_MS, onBusy: (busy) => busyError(file, busy) },
    (hold) =>
      edit(async (text, mode) => {
        if (!(await hold.held())) {
          throw new CliError(
            CliErrorCode.CLI_CONFIG_BUSY,
            `${file}: its lock ${target}.lock was removed or replaced while this edit ran, so another process may have changed the file; nothing was written, run the command again`,
          );
        }
        // The file that was locked, not the link resolved again: a re-pointed link would
        // otherwise be written without its lock.
        await replaceResolvedFile(target, text, mode);
      }),
  );
}

async function isDirectory(path: string): Promise<boolean> {
  return stat(path).then(
    (info) => info.isDirectory(),
    () => false,
  );
}

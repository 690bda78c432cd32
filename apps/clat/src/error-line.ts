/** The one line the CLI prints for a failure a command reports. @module */
import { dirname } from 'node:path';
import { describeClatError, errorMessage, redactSecrets, sanitizeTerminalText } from '@clat/kernel';
import { readRefusal, tempFileTarget } from '@clat/node-files';
import { indentLaterLines } from './ui/indent.js';

/**
 * `clat: <message><hint> [CODE]` for any ClatError (of any package), `clat: <message><hint>`
 * otherwise; every command prints failures through here so the format has one owner. Error text
 * carries what servers and packages sent: it reaches the terminal sanitised, and redacted as a
 * safety net for a message that quotes a key it should not have.
 */
export function errorLine(error: unknown, hint = ''): string {
  // The hint goes before the code: scripts find a failure's code at the end of its line.
  const described = describeClatError(error);
  // A function replacer: a `$` in the hint is text, not a replacement pattern.
  const text =
    hint === ''
      ? described
      : described.replace(
          /( \[[A-Z0-9_]+\])?$/,
          (_match, code: string | undefined) => `${hint}${code ?? ''}`,
        );
  // Its later lines are indented: one a server put in its error text never passes for CLAT's.
  return `clat: ${indentLaterLines(sanitizeTerminalText(redactSecrets(text)))}\n`;
}

/**
 * The report of a bug (anything but a ClatError): one redacted line, and under `CLAT_DEBUG` the
 * stack, redacted too since its first line repeats the message.
 */
export function unexpectedErrorLine(error: unknown, env: NodeJS.ProcessEnv): string {
  const detail =
    env.CLAT_DEBUG === undefined ? '' : `\n${(error as Error)?.stack ?? String(error)}`;
  const text = redactSecrets(`unexpected error: ${errorMessage(error)}${detail}`);
  return `clat: ${sanitizeTerminalText(text)}\n`;
}

/** What a refused file operation means, and what a person can do about it (given its directory). */
const FILE_ERRORS: Record<string, { reason: string; hint?: (dir: string | undefined) => string }> =
  {
    EACCES: {
      reason: 'permission denied',
      hint: (dir) => (dir === undefined ? '' : `check the owner and mode of ${dir}`),
    },
    EPERM: {
      reason: 'operation not permitted',
      hint: (dir) => (dir === undefined ? '' : `check the owner, mode and attributes of ${dir}`),
    },
    EROFS: { reason: 'its file system is read-only' },
    ENOSPC: { reason: 'the disk is full', hint: () => 'free some space and retry' },
    EDQUOT: { reason: 'your disk quota is used up', hint: () => 'free some space and retry' },
    ENOTDIR: { reason: 'a part of its path is a file, not a directory' },
    // Near PATH_MAX the path of a temporary sibling or lock (longer than the file's) is refused.
    ENAMETOOLONG: {
      reason: 'its path is too long for the file system',
      hint: () => 'use a shorter path (a project nearer the root, or a shorter CLAT_HOME)',
    },
  };

/** What a system call did, as a verb a person reads (anything else: "write"). */
const ACTIONS: Record<string, string> = {
  mkdir: 'create',
  rename: 'replace',
  unlink: 'remove',
  rmdir: 'remove',
  rm: 'remove',
  chmod: 'set the mode of',
  lstat: 'read',
  stat: 'read',
  scandir: 'read',
  opendir: 'read',
  read: 'read',
};

/**
 * The file a person knows for a path CLAT wrote through: a temporary sibling
 * (`.<name>.<pid>.<random>.tmp`) stands for `<name>`, and a lock (`<name>.lock`) for `<name>`.
 */
function knownFile(path: string): string {
  const named = tempFileTarget(path) ?? path;
  return named.endsWith('.lock') ? named.slice(0, -'.lock'.length) : named;
}

/**
 * One sentence for a file operation the system refused (a read-only or foreign-owned CLAT home, a
 * full disk): what could not be done to which file, why, and what to check; undefined for any
 * other error. Replaces the raw `EACCES: permission denied, open '<temp file>'`.
 */
export function fileErrorText(
  error: unknown,
  /**
   * What the failed call was for, when the caller knows (a settings file it reads): an `open`
   * alone does not say, and is taken as a write (`clat plugin new` creating a file).
   */
  known: { action?: 'read' } = {},
): string | undefined {
  const { code, syscall, path } = (error ?? {}) as NodeJS.ErrnoException;
  const refusal = code === undefined ? undefined : FILE_ERRORS[code];
  if (refusal === undefined) return undefined;
  const written = path !== undefined && (knownFile(path) !== path || path.endsWith('.tmp'));
  const action = syscall?.startsWith('spawn')
    ? 'run'
    : syscall === 'open' && !written && known.action !== undefined
      ? known.action
      : (syscall !== undefined && ACTIONS[syscall]) || 'write';
  const file = path === undefined ? undefined : knownFile(path);
  // A file that cannot be read is its own owner and mode's doing (said as the plugin store says
  // it of its registry); one not written, its directory's.
  const readOwn = file !== undefined && action === 'read' && syscall === 'open';
  const denied = readOwn ? readRefusal(file, error) : undefined;
  if (denied !== undefined) return sanitizeTerminalText(denied);
  const checked = file === undefined ? undefined : readOwn ? file : dirname(file);
  const hint = refusal.hint?.(checked) ?? '';
  const what = file === undefined ? action : `${action} ${file}`;
  return sanitizeTerminalText(
    `cannot ${what}: ${refusal.reason} (${code})${hint === '' ? '' : `; ${hint}`}`,
  );
}

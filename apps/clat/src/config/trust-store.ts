/**
 * Trusted project roots, kept in `~/.clat/trust.json`. Nothing of a project's MCP surface is
 * spawned or contacted before its real path is trusted here (or trust is granted for one run).
 * @module
 */

import { realpathSync, statSync } from 'node:fs';
import { dirname, isAbsolute, resolve } from 'node:path';
import { describeJsonSyntaxError, shellWord } from '@clat/kernel';
import { whyNotWritable } from '@clat/node-files';
import { CliError, CliErrorCode } from '../errors.js';
import { cannotReadError } from './cannot-read.js';
import type { ClatHome } from './clat-home.js';
import { editConfigFile } from './config-lock.js';
import { findProjectRoot } from './project-root.js';
import { readSmallFile } from './read-small-file.js';
import { isCanonicalRoot, isTrustEntry } from './trust-entry.js';

interface TrustFile {
  version: 1;
  projects: Record<string, unknown>;
  [key: string]: unknown;
}

interface TrustState {
  /** The file as read, rewritten by edits with only their change. */
  file: TrustFile;
  /** The roots trusted: absolute keys whose value is what `clat trust` records. */
  trusted: Set<string>;
  /** Entries that are not trusted though present, one line each naming the key. */
  issues: string[];
}

async function readTrust(file: string): Promise<TrustState> {
  let text: string | undefined;
  try {
    text = readSmallFile(file);
  } catch (error) {
    throw cannotReadError(file, error);
  }
  if (text === undefined)
    return { file: { version: 1, projects: {} }, trusted: new Set(), issues: [] };
  // Deleting the file only forgets trust: the fail-safe way out of a file CLAT cannot read.
  const remedy = 'fix it by hand, or delete it to forget every trusted project';
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new CliError(
      CliErrorCode.CLI_CONFIG_INVALID,
      `${file}: not valid JSON (${describeJsonSyntaxError(text)}); ${remedy}`,
    );
  }
  const projects = (parsed as { projects?: unknown } | null)?.projects;
  if (typeof projects !== 'object' || projects === null || Array.isArray(projects)) {
    throw new CliError(
      CliErrorCode.CLI_CONFIG_INVALID,
      `${file}: projects: must be an object; ${remedy}`,
    );
  }
  const trusted = new Set<string>();
  const issues: string[] = [];
  for (const [root, value] of Object.entries(projects)) {
    // `clat trust` records canonical absolute paths only: a relative key would trust whatever
    // directory of that name a lookup happened to compare it with.
    if (!isCanonicalRoot(root)) {
      issues.push(
        `${file}: projects: ${JSON.stringify(root)} is not ${isAbsolute(root) ? 'a canonical path (a trailing slash, "." or ".." parts)' : 'an absolute path'}, so it trusts nothing; remove it from the file`,
      );
    } else if (!isTrustEntry(root, value)) {
      issues.push(
        `${file}: projects: ${JSON.stringify(root)} is not trusted, as its value is not what "clat trust" records; run "clat trust --remove ${shellWord(root)}" to drop it`,
      );
    } else trusted.add(root);
  }
  return { file: parsed as TrustFile, trusted, issues };
}

/** The canonical project root: absolute and symlink-free, so a link cannot borrow trust. */
export async function canonicalProjectRoot(dir: string, cwd: string): Promise<string> {
  const absolute = resolve(cwd, dir);
  let real: string;
  try {
    // One synchronous realpath(3), like the thread-pool one it replaces, without the round trip.
    real = realpathSync.native(absolute);
  } catch (error) {
    throw new CliError(
      CliErrorCode.CLI_USAGE,
      `project directory ${JSON.stringify(absolute)} does not exist`,
      { cause: error },
    );
  }
  // A file would pass as a project (and be trusted), and every later read of its .clat/ fail.
  if (!statSync(real).isDirectory()) {
    throw new CliError(
      CliErrorCode.CLI_USAGE,
      `project directory ${JSON.stringify(absolute)} is not a directory; name the project's directory, such as ${shellWord(dirname(real))}`,
    );
  }
  return real;
}

/**
 * The project `dir` belongs to: its canonical path, or the nearest directory above it that is
 * trusted or holds `.clat/mcp.json` (see project-root.ts). `clat trust <dir>` names a root
 * exactly and uses `canonicalProjectRoot` instead.
 */
export async function projectRootOf(dir: string, cwd: string, home: ClatHome): Promise<string> {
  const start = await canonicalProjectRoot(dir, cwd);
  const { trusted } = await readTrust(home.trustFile);
  return findProjectRoot(start, (candidate) => trusted.has(candidate), home.dir);
}

export async function isTrusted(file: string, root: string): Promise<boolean> {
  return (await readTrust(file)).trusted.has(root);
}

export async function trustProject(file: string, root: string): Promise<void> {
  await editConfigFile(file, async (commit) => {
    const trust = (await readTrust(file)).file;
    trust.projects[root] = { trustedAt: new Date().toISOString() };
    await commit(`${JSON.stringify(trust, null, 2)}\n`);
  });
}

export async function untrustProject(file: string, root: string): Promise<boolean> {
  return editConfigFile(file, async (commit) => {
    const trust = (await readTrust(file)).file;
    if (!Object.hasOwn(trust.projects, root)) return false;
    delete trust.projects[root];
    await commit(`${JSON.stringify(trust, null, 2)}\n`);
    return true;
  });
}

/**
 * Why `clat trust` cannot record trust in `trustFile` (its directory, or the nearest one that
 * exists, is on a read-only file system or not writable), or undefined when it can.
 */
export function trustNotRecordable(trustFile: string): string | undefined {
  return whyNotWritable(dirname(trustFile));
}

/**
 * How to trust the project at `projectRoot`: `clat trust <root>` (the path typed in the shell the
 * person is in: a bare "clat trust" would trust the directory there, not the project -C named),
 * or, when that command could not record it (a read-only CLAT home), --trust for each run.
 */
export function trustAdvice(trustFile: string, projectRoot: string): string {
  const why = trustNotRecordable(trustFile);
  if (why !== undefined) return `pass --trust: trust cannot be recorded, as ${why}`;
  return `run "clat trust ${shellWord(projectRoot)}", or pass --trust`;
}

/** The trusted roots, and the entries present that trust nothing (each naming its key). */
export async function listTrusted(file: string): Promise<{ roots: string[]; issues: string[] }> {
  const { trusted, issues } = await readTrust(file);
  return { roots: [...trusted].sort(), issues };
}

/** Why the entry `trust.json` has for `root` does not trust it; undefined when it has none. */
export async function trustEntryIssue(file: string, root: string): Promise<string | undefined> {
  const { issues } = await readTrust(file);
  return issues.find((issue) => issue.includes(`projects: ${JSON.stringify(root)} `));
}

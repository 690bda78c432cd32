/**
 * Trusted project roots, kept in `~/.clat/trust.json`. Nothing of a project's MCP surface is
 * spawned or contacted before its real path is trusted here (or trust is granted for one run).
 * @module
 */

import { realpathSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { describeJsonSyntaxError, shellWord } from '@clat/kernel';
import { whyNotWritable } from '@clat/node-files';
import { CliError, CliErrorCode } from '../errors.js';
import type { ClatHome } from './clat-home.js';
import { editConfigFile } from './config-lock.js';
import { findProjectRoot } from './project-root.js';
import { readSmallFile } from './read-small-file.js';

interface TrustFile {
  version: 1;
  projects: Record<string, { trustedAt: string }>;
  [key: string]: unknown;
}

async function readTrust(file: string): Promise<TrustFile> {
  const text = readSmallFile(file);
  if (text === undefined) return { version: 1, projects: {} };
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new CliError(
      CliErrorCode.CLI_CONFIG_INVALID,
      `${file}: not valid JSON (${describeJsonSyntaxError(text)})`,
    );
  }
  const projects = (parsed as { projects?: unknown } | null)?.projects;
  if (typeof projects !== 'object' || projects === null || Array.isArray(projects)) {
    throw new CliError(CliErrorCode.CLI_CONFIG_INVALID, `${file}: projects: must be an object`);
  }
  return parsed as TrustFile;
}

/** The canonical project root: absolute and symlink-free, so a link cannot borrow trust. */
export async function canonicalProjectRoot(dir: string, cwd: string): Promise<string> {
  const absolute = resolve(cwd, dir);
  try {
    // One synchronous realpath(3), like the thread-pool one it replaces, without the round trip.
    return realpathSync.native(absolute);
  } catch (error) {
    throw new CliError(
      CliErrorCode.CLI_USAGE,
      `project directory ${JSON.stringify(absolute)} does not exist`,
      { cause: error },
    );
  }
}

/**
 * The project `dir` belongs to: its canonical path, or the nearest directory above it that is
 * trusted or holds `.clat/mcp.json` (see project-root.ts). `clat trust <dir>` names a root
 * exactly and uses `canonicalProjectRoot` instead.
 */
export async function projectRootOf(dir: string, cwd: string, home: ClatHome): Promise<string> {
  const start = await canonicalProjectRoot(dir, cwd);
  const { projects } = await readTrust(home.trustFile);
  return findProjectRoot(start, (candidate) => Object.hasOwn(projects, candidate), home.dir);
}

export async function isTrusted(file: string, root: string): Promise<boolean> {
  const trust = await readTrust(file);
  return Object.hasOwn(trust.projects, root);
}

export async function trustProject(file: string, root: string): Promise<void> {
  await editConfigFile(file, async (commit) => {
    const trust = await readTrust(file);
    trust.projects[root] = { trustedAt: new Date().toISOString() };
    await commit(`${JSON.stringify(trust, null, 2)}\n`);
  });
}

export async function untrustProject(file: string, root: string): Promise<boolean> {
  return editConfigFile(file, async (commit) => {
    const trust = await readTrust(file);
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

export async function listTrusted(file: string): Promise<string[]> {
  return Object.keys((await readTrust(file)).projects).sort();
}

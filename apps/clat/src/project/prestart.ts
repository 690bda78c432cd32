/**
 * Spawns the stdio servers of a trusted project before the rest of `clat` loads, so each server
 * starts while `clat` evaluates its modules (`clat tools` is mostly those two waits). This module
 * and what it imports stay off the kernel, zod and the MCP core: its point is to run first.
 *
 * Only a project already trusted (its real path in trust.json, or `--trust`) is prestarted: an
 * untrusted one spawns nothing until the ordinary path decided trust. Only plain, enabled stdio
 * entries without `${…}` variables are prestarted, from the same files and precedence as the
 * full load; the stdio transport adopts a process only when the validated entry launches exactly
 * it, and `PrestartedServers.close` tears down the rest. Any doubt means no prestart: the full
 * load then starts and reports everything as it always did.
 * @module
 */
import { realpathSync } from 'node:fs';
import { resolve } from 'node:path';
import { plainStdioEntry } from '@clat/adapter-mcp/plain-stdio-entry';
import { PrestartedServers, type PrestartSpec } from '@clat/adapter-mcp-stdio/prestart';
import type { CommandIO } from '../command.js';
import { projectMcpFile, resolveClatHome } from '../config/clat-home.js';
import { findProjectRoot } from '../config/project-root.js';
import { readSmallFile } from '../config/read-small-file.js';
import { isTrustEntry } from '../config/trust-entry.js';

/** What a prestart reads of the command's environment. */
export type PrestartIO = Pick<CommandIO, 'env' | 'cwd'>;

export interface PrestartOptions {
  /** `--project`; defaults to the current directory. */
  project?: string | undefined;
  /** `--trust` given for this invocation. */
  trust?: boolean | undefined;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The server map of mcp.json text (bare or under `mcpServers`); undefined when not one. */
function serverMap(text: string): Record<string, unknown> | undefined {
  let root: unknown;
  try {
    root = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!isRecord(root)) return undefined;
  if (!('mcpServers' in root)) return root;
  return isRecord(root.mcpServers) ? root.mcpServers : undefined;
}

// Synchronous reads: nothing else runs yet, and each asynchronous one would cost a thread-pool
// round trip before the spawn this module exists to bring forward.
function readServers(file: string): Record<string, unknown> {
  let text: string | undefined;
  try {
    // Never a FIFO or an oversized file: those are the command's to report, not the boot's.
    text = readSmallFile(file);
  } catch {
    return {};
  }
  return text === undefined ? {} : (serverMap(text) ?? {});
}

/** The roots trust.json lists; an unreadable or odd file lists none (openProject reports it). */
function trustedRoots(trustFile: string): (root: string) => boolean {
  try {
    const projects = (JSON.parse(readSmallFile(trustFile) ?? '{}') as { projects?: unknown })
      ?.projects;
    if (typeof projects !== 'object' || projects === null) return () => false;
    return (root) =>
      Object.hasOwn(projects, root) &&
      isTrustEntry(root, (projects as Record<string, unknown>)[root]);
  } catch {
    return () => false;
  }
}

/** The launches to prestart: what openProject would start, as far as this light read can tell. */
function plannedLaunches(io: PrestartIO, options: PrestartOptions): PrestartSpec[] {
  const home = resolveClatHome(io.env, io.cwd);
  // trust-store's projectRootOf: the real path (a link cannot borrow trust), then the project a
  // subdirectory belongs to.
  const trusted = trustedRoots(home.trustFile);
  const projectRoot = findProjectRoot(
    realpathSync(resolve(io.cwd, options.project ?? '.')),
    trusted,
    home.dir,
  );
  if (options.trust !== true && !trusted(projectRoot)) return [];
  const user = readServers(home.mcpFile);
  const local = readServers(projectMcpFile(projectRoot));
  const launches: PrestartSpec[] = [];
  for (const map of [user, local]) {
    for (const [name, raw] of Object.entries(map)) {
      // The user's file wins a name both define (openProject's rule).
      if (map === local && Object.hasOwn(user, name)) continue;
      const entry = name.trim() === '' ? undefined : plainStdioEntry(raw);
      // Disabled entries never start; `${VAR}` references are expanded by the full load only.
      if (entry === undefined || entry.disabled === true) continue;
      if (JSON.stringify(entry).includes('${')) continue;
      launches.push({
        name,
        command: entry.command,
        args: entry.args,
        env: entry.env,
        cwd: entry.cwd,
        defaultCwd: home.dir,
      });
    }
  }
  return launches;
}

/**
 * Starts the plain stdio servers a trusted project would mount and resolves once they spawned;
 * undefined when there is nothing to start (untrusted project, no plain entry, any doubt).
 * The caller closes the returned set.
 */
export async function prestartServers(
  io: PrestartIO,
  options: PrestartOptions,
): Promise<PrestartedServers | undefined> {
  let launches: PrestartSpec[];
  try {
    launches = plannedLaunches(io, options);
  } catch {
    return undefined;
  }
  if (launches.length === 0) return undefined;
  const prestarted = new PrestartedServers();
  for (const launch of launches) prestarted.start(launch);
  // Spawned before the caller loads the rest of `clat`: module evaluation holds the event loop,
  // and would hold the spawn with it.
  await prestarted.spawned();
  return prestarted;
}

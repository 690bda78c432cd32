/**
 * Shared by `clat prompts` and `clat resources`: argument checks, a project that mounts only the
 * servers asked about, and which servers could not be asked (`clat tools` reports those too).
 * @module
 */
import type { MountSummary, PluginMount } from '@clat/kernel';
import { catalogOf } from '../catalog/load-catalog.js';
import type { CommandIO } from '../command.js';
import { CliError, CliErrorCode } from '../errors.js';
import { mcpStatusCommand } from '../project/project-command.js';
import { waitForSurface, withProject } from '../project/with-project.js';
import { unavailableLines } from '../ui/mcp-status.js';

export type CatalogKind = 'prompts' | 'resources';

export interface CatalogFlags {
  project?: string | undefined;
  trust?: boolean | undefined;
  json?: boolean | undefined;
}

/** The one optional server of `clat <kind> [<server>]`; more words are a usage error. */
export function listTarget(
  kind: CatalogKind,
  verb: string,
  positionals: string[],
): string | undefined {
  if (positionals.length > 1) {
    throw new CliError(
      CliErrorCode.CLI_USAGE,
      `clat ${kind}: name at most one server (or use "clat ${kind} ${verb} <server> ..."); got ${JSON.stringify(positionals[1])}`,
    );
  }
  return positionals[0];
}

/**
 * Runs `body` on a trusted project's mount once its servers settled. With `server` named, only
 * that server is mounted and a server that cannot answer for `kind` fails with one sentence
 * before `body` runs.
 */
export function withCatalogServers(
  io: CommandIO,
  flags: CatalogFlags,
  kind: CatalogKind,
  server: string | undefined,
  body: (mount: PluginMount) => Promise<number>,
): Promise<number> {
  return withProject(
    io,
    {
      project: flags.project,
      trust: flags.trust,
      promptForTrust: true,
      modelOptional: true,
      ...(server === undefined ? {} : { select: (entry) => entry.name === server }),
    },
    async (project) => {
      await waitForSurface(io, project);
      const mount = project.session.mount;
      if (server !== undefined) catalogOf(mount, server, kind, mcpStatusCommand(flags));
      return body(mount);
    },
  );
}

/**
 * One stderr line per configured server that is not connected (failed, login, connecting), each
 * naming the `clat mcp` (with this run's project flags) that shows why.
 */
export function reportUnavailable(io: CommandIO, summary: MountSummary, flags: CatalogFlags): void {
  for (const text of unavailableLines(summary, mcpStatusCommand(flags))) {
    io.stderr.write(`clat: ${text}\n`);
  }
}

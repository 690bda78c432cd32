/** `clat trust`: record (or revoke) trust in a project so its MCP servers may start. @module */
import { realpathSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { sanitizeTerminalLine } from '@clat/kernel';
import { parseFlags } from '../cli-options.js';
import type { Command } from '../command.js';
import { resolveClatHome } from '../config/clat-home.js';
import {
  canonicalProjectRoot,
  listTrusted,
  projectRootOf,
  trustProject,
  untrustProject,
} from '../config/trust-store.js';
import { CliError, CliErrorCode } from '../errors.js';
import { shownPath } from '../ui/shown-path.js';

const USAGE = `Usage: clat trust [<dir>]            Trust a project (default: the project here)
       clat trust --remove [<dir>]   Revoke trust
       clat trust --list           List trusted projects

Nothing configured in ~/.clat/mcp.json is spawned or contacted for a project before it is trusted.
The project here is the current directory, or the nearest directory above it that is trusted or
holds .clat/mcp.json (below your home directory), as every clat command finds it; a <dir> named
is trusted as named.
`;

/**
 * The key `clat trust` recorded for `dir`, also when the directory is gone: its deepest existing
 * ancestor made symlink-free, plus the rest. A deleted project must stay revocable, or a later
 * checkout at that path would inherit its trust.
 */
function removalRoot(dir: string, cwd: string): string {
  const absolute = resolve(cwd, dir);
  let existing = absolute;
  while (true) {
    try {
      return join(realpathSync.native(existing), relative(existing, absolute));
    } catch {
      const parent = dirname(existing);
      if (parent === existing) return absolute;
      existing = parent;
    }
  }
}

export const trustCommand: Command = {
  name: 'trust',
  summary: 'Trust a project so its MCP servers may start (--remove, --list)',
  usage: USAGE,
  async run(argv, io) {
    const { values, positionals } = parseFlags('trust', argv, {
      remove: { type: 'boolean' },
      list: { type: 'boolean' },
    });
    if (positionals.length > 1) {
      throw new CliError(CliErrorCode.CLI_USAGE, 'clat trust: expected at most one directory');
    }
    if (values.list === true && (values.remove === true || positionals.length > 0)) {
      throw new CliError(
        CliErrorCode.CLI_USAGE,
        'clat trust --list takes no directory and no --remove; run "clat trust --list" alone',
      );
    }
    const home = resolveClatHome(io.env, io.cwd);
    if (values.list === true) {
      const { roots, issues } = await listTrusted(home.trustFile);
      // One root a line, whatever its name holds (a newline must not list a second root).
      for (const root of roots) io.stdout.write(`${shownPath(root)}\n`);
      // An entry that trusts nothing is not listed as trusted, and said so where it is not listed.
      for (const issue of issues) io.stderr.write(`clat: config: ${sanitizeTerminalLine(issue)}\n`);
      return 0;
    }
    if (values.remove === true) {
      const root =
        positionals[0] === undefined
          ? await projectRootOf('.', io.cwd, home)
          : removalRoot(positionals[0], io.cwd);
      const removed = await untrustProject(home.trustFile, root);
      io.stdout.write(`${removed ? 'Trust revoked' : 'Not trusted'}: ${shownPath(root)}\n`);
      return 0;
    }
    // A directory named is trusted as named; none means the project here (the one a subdirectory
    // belongs to, as every other command finds it).
    const root =
      positionals[0] === undefined
        ? await projectRootOf('.', io.cwd, home)
        : await canonicalProjectRoot(positionals[0], io.cwd);
    await trustProject(home.trustFile, root);
    io.stdout.write(`Trusted: ${shownPath(root)}\n`);
    return 0;
  },
};

/** `clat approvals list|reset`: the "always allow in this project" answers CLAT keeps. @module */
import { existsSync } from 'node:fs';
import { sanitizeTerminalLine, shellWord } from '@clat/kernel';
import { ApprovalStore, type UnreadableApproval } from '../approvals/approval-store.js';
import { parseFlags } from '../cli-options.js';
import type { Command } from '../command.js';
import { resolveClatHome } from '../config/clat-home.js';
import { projectRootOf } from '../config/trust-store.js';
import { CliError, CliErrorCode } from '../errors.js';
import { jsonOutput } from '../ui/json-output.js';

const USAGE = `Usage: clat approvals [list] [--all] [--json] [-C <dir>]
       clat approvals reset [<tool>] [--all] [-C <dir>]

At an approval prompt you can answer y (once), s (always this tool for this session) or p (always
this tool in this project). A "p" answer is saved in ~/.clat/approvals.json (0600) together with
the tool's effect and its server's configuration digest: when the server's command, version, URL
or the tool's effect changes, CLAT asks again.

list    Saved approvals of the current project (--all: every project)
reset   Forget one tool's approval, or every approval of the project (--all: of every project)

Options:
  -C, --project <dir>  Project root (default: the current directory)
      --all            Every project
      --json           Machine-readable output (list)
`;

/**
 * The note on an entry `clat approvals list` cannot read (a newer CLAT's, a hand edit): it is
 * kept in the file and never applied, so the list must not look as if it were not there.
 */
function unreadableLine(file: string, entry: UnreadableApproval): string {
  const project = JSON.stringify(entry.project);
  if (entry.tool === undefined) {
    return sanitizeTerminalLine(
      `${file}: projects[${project}] is not an object of approvals, so none of it is applied; fix or remove it by hand`,
    );
  }
  // `-C` needs the directory: a project since deleted (the likeliest home of a stale entry) can
  // only be cleaned by hand.
  const way = existsSync(entry.project)
    ? `"clat approvals reset ${shellWord(entry.tool)} -C ${shellWord(entry.project)}" removes it`
    : 'its project no longer exists, so remove it from the file by hand';
  return sanitizeTerminalLine(
    `${file}: projects[${project}][${JSON.stringify(entry.tool)}] is not an approval this CLAT can read (it lacks "effect", "digest" or "at" strings), so it is kept but not applied; ${way}`,
  );
}

export const approvalsCommand: Command = {
  name: 'approvals',
  summary: 'List or reset the approvals saved per project',
  usage: USAGE,
  async run(argv, io) {
    const [first, ...rest] = argv;
    const sub = first === undefined || first.startsWith('-') ? 'list' : first;
    const args = sub === first ? rest : argv;
    const { values, positionals } = parseFlags(`approvals ${sub}`, args, {
      all: { type: 'boolean' },
      json: { type: 'boolean' },
      project: { type: 'string', short: 'C' },
    });
    const home = resolveClatHome(io.env, io.cwd);
    const store = new ApprovalStore(home.approvalsFile);
    const project =
      values.all === true ? undefined : await projectRootOf(values.project ?? '.', io.cwd, home);
    if (sub === 'list') {
      if (positionals.length > 0) {
        throw new CliError(CliErrorCode.CLI_USAGE, 'clat approvals list: takes no arguments');
      }
      const { approvals: saved, unreadable } = await store.list(project);
      // Kept in the file (a newer CLAT's entries, a hand edit) but never applied: say so, on
      // stderr, so --json stays the exact listing.
      for (const entry of unreadable)
        io.stderr.write(`clat: ${unreadableLine(store.file, entry)}\n`);
      if (values.json === true) {
        io.stdout.write(jsonOutput({ file: store.file, approvals: saved }, 'clat approvals list'));
        return 0;
      }
      if (saved.length === 0) {
        io.stdout.write(
          `No saved approvals${project === undefined ? '' : ` for ${project}`}; answer "p" at an approval prompt to save one\n`,
        );
        return 0;
      }
      for (const approval of saved) {
        io.stdout.write(
          `  ${sanitizeTerminalLine(approval.tool)}  ${approval.effect}  ${approval.at}${project === undefined ? `  ${sanitizeTerminalLine(approval.project)}` : ''}\n`,
        );
      }
      return 0;
    }
    if (sub === 'reset') {
      if (positionals.length > 1) {
        throw new CliError(CliErrorCode.CLI_USAGE, 'clat approvals reset: name at most one tool');
      }
      if (values.json === true) {
        // Nothing to print as JSON: the exit code says whether it worked (README: exit codes).
        throw new CliError(
          CliErrorCode.CLI_USAGE,
          'clat approvals reset: --json only applies to list; the exit code tells a script whether the reset worked',
        );
      }
      const tool = positionals[0];
      const removed = await store.reset(project, tool);
      const what = tool === undefined ? 'approval' : `approval of ${JSON.stringify(tool)}`;
      io.stdout.write(
        removed === 0
          ? `No saved ${what} to forget${project === undefined ? '' : ` for ${project}`}\n`
          : `Forgot ${removed} saved ${what}${removed === 1 ? '' : 's'}${project === undefined ? '' : ` for ${project}`}\n`,
      );
      return 0;
    }
    throw new CliError(
      CliErrorCode.CLI_USAGE,
      `clat approvals: unknown subcommand ${JSON.stringify(sub)}; use list or reset`,
    );
  },
};

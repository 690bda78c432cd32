/** `clat call <tool> '<json>'`: one tool call through the permission pipeline. @module */
import { isKernelError, KernelErrorCode, sanitizeTerminalText } from '@clat/kernel';
import { PROJECT_OPTIONS, PROJECT_USAGE, parseFlags, parseMode } from '../cli-options.js';
import type { Command } from '../command.js';
import { CliError, CliErrorCode } from '../errors.js';
import { waitForSurface, withProject } from '../project/with-project.js';
import { EXIT, exitCodeFor } from '../run/exit-codes.js';
import { isTty } from '../ui/line-prompt.js';
import { createLineApprover, createLineAsker, ttyLineAsk } from '../ui/tty-approver.js';

const USAGE = `Usage: clat call <tool> ['<json arguments>'] [--mode <mode>]

Calls one registered tool through the permission pipeline. Effects the mode asks about are
prompted on a terminal; without a terminal (headless) they are denied with exit code 3.
The result text goes to stdout; a tool-level error exits 1; Ctrl-C cancels (exit 130).

Options:
${PROJECT_USAGE}
      --json           Print the full result object
`;

function parseArguments(text: string | undefined): unknown {
  if (text === undefined) return {};
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new CliError(
      CliErrorCode.CLI_USAGE,
      `clat call: arguments are not valid JSON: ${(error as Error).message}`,
    );
  }
}

export const callCommand: Command = {
  name: 'call',
  summary: 'Call one tool through the permission pipeline',
  usage: USAGE,
  async run(argv, io) {
    const { values, positionals } = parseFlags('call', argv, PROJECT_OPTIONS);
    const [name, json, ...extra] = positionals;
    if (name === undefined || extra.length > 0) {
      throw new CliError(
        CliErrorCode.CLI_USAGE,
        'clat call: expected <tool> and at most one JSON argument object',
      );
    }
    const args = parseArguments(json);
    return withProject(
      io,
      { project: values.project, trust: values.trust, promptForTrust: true },
      async (project) => {
        const mode = parseMode(values.mode, project.user.mode ?? 'project-write');
        await waitForSurface(io, project);
        const interactive = isTty(io.stdin);
        const ask = ttyLineAsk(io.stdin, io.stderr);
        const run = await project.session.beginRun({
          mode,
          ...(interactive
            ? {
                approver: createLineApprover(io.stderr, ask),
                asker: createLineAsker(io.stderr, ask),
              }
            : {}),
        });
        const onSigint = () => run.token.cancel('cancelled by Ctrl-C');
        process.once('SIGINT', onSigint);
        try {
          const result = await project.session.pipeline.call(name, args, run.context);
          if (values.json === true) io.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
          else io.stdout.write(`${sanitizeTerminalText(result.content)}\n`);
          return result.isError === true ? EXIT.failed : EXIT.ok;
        } catch (error) {
          if (isKernelError(error) && error.code === KernelErrorCode.TOOL_NOT_FOUND) {
            throw new CliError(
              CliErrorCode.CLI_USAGE,
              `${error.message}; run "clat tools" for the list`,
            );
          }
          const hint =
            isKernelError(error) && error.code === KernelErrorCode.PERMISSION_DENIED && !interactive
              ? ` (no terminal to ask; rerun with a terminal or a mode that allows it, e.g. --mode full-access)`
              : '';
          io.stderr.write(`clat: ${sanitizeTerminalText((error as Error).message)}${hint}\n`);
          return exitCodeFor(error);
        } finally {
          process.removeListener('SIGINT', onSigint);
          await run.end();
        }
      },
    );
  },
};

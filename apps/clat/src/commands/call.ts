/** `clat call <tool> '<json>'`: one tool call through the permission pipeline. @module */
import {
  isKernelError,
  jsonDepthExceeds,
  KernelErrorCode,
  LIMITS,
  sanitizeTerminalText,
} from '@clat/kernel';
import {
  JSON_OPTION,
  MODE_OPTION,
  MODE_USAGE,
  PROJECT_OPTIONS,
  PROJECT_USAGE,
  parseFlags,
  runMode,
} from '../cli-options.js';
import type { Command } from '../command.js';
import { errorLine } from '../error-line.js';
import { CliError, CliErrorCode } from '../errors.js';
import { mcpStatusCommand, projectCommand } from '../project/project-command.js';
import { ownersOf, resourceToolReaches } from '../project/select-entries.js';
import { waitForSurface, withProject } from '../project/with-project.js';
import {
  isJsonArgument,
  parseJsonArguments,
  parseKeyValueArguments,
} from '../run/call-arguments.js';
import { EXIT, exitCodeFor } from '../run/exit-codes.js';
import { claudeToolName, didYouMeanTool } from '../ui/did-you-mean.js';
import { jsonOutput } from '../ui/json-output.js';
import { isTty, redrawsInPlace } from '../ui/line-prompt.js';
import { needsLoginLines, skippedToolWarning, unavailableLine } from '../ui/mcp-status.js';
import { showSamplingWait } from '../ui/sampling-wait.js';
import { showToolProgress } from '../ui/tool-progress.js';
import {
  createLineApprover,
  createLineAsker,
  createSavedApprover,
  ttyLineAsk,
} from '../ui/tty-approver.js';

const USAGE = `Usage: clat call <tool> ['<json arguments>' | key=value ...] [--mode <mode>]

Calls one registered tool through the permission pipeline. Arguments are one JSON object, or
key=value pairs typed by the tool's input schema (limit=5, recursive=true, tags='["a"]'); see
"clat tools <tool>" for its signature. Effects the mode asks about are
prompted on a terminal; without a terminal (headless) they are denied with exit code 3,
unless "p" at an earlier prompt saved an approval of the tool for this project.
The result goes to stdout as readable text: text blocks as they are, other content as one line
each ([image image/png 1.2 KiB], [resource <uri> …] then its text, [link <uri> …]). Progress
goes to stderr. A tool-level error exits 1; Ctrl-C cancels (exit 130).

Options:
${PROJECT_USAGE}
${MODE_USAGE}
      --json           Print the full result object (every content block, exactly)
`;

export const callCommand: Command = {
  name: 'call',
  summary: 'Call one tool through the permission pipeline',
  usage: USAGE,
  async run(argv, io) {
    const { values, positionals } = parseFlags('call', argv, {
      ...PROJECT_OPTIONS,
      ...JSON_OPTION,
      ...MODE_OPTION,
    });
    const [name, ...words] = positionals;
    if (name === undefined) {
      throw new CliError(
        CliErrorCode.CLI_USAGE,
        'clat call: expected <tool> and its arguments (one JSON object or key=value pairs)',
      );
    }
    // JSON is checked before anything is mounted; key=value needs the tool's schema.
    const json = words.length === 0 || isJsonArgument(words);
    const jsonArgs = json ? parseJsonArguments(words[0]) : undefined;
    const claude = claudeToolName(name);
    const reaches = resourceToolReaches(name, jsonArgs, words);
    return withProject(
      io,
      {
        project: values.project,
        trust: values.trust,
        promptForTrust: true,
        modelOptional: true,
        // Only the servers that can own this tool are started (and, for Claude Code's
        // `mcp__<server>__<tool>`, those that own CLAT's name of it, for "did you mean").
        // The resource tools reach the server their arguments name, or every server.
        select: (entry) =>
          ownersOf(name)(entry) ||
          (claude !== undefined && ownersOf(claude)(entry)) ||
          reaches(entry),
      },
      async (project) => {
        const mode = runMode(values.mode, project.user, (line) => io.stderr.write(line), {
          runs: 'this call runs',
          choose: 'pass --mode to choose',
        });
        await waitForSurface(io, project);
        for (const line of needsLoginLines(project.session.mount.summary()))
          io.stderr.write(`clat: ${line}\n`);
        const tool = project.session.registry.get(name);
        const args = jsonArgs ?? parseKeyValueArguments(words, tool?.definition.inputSchema ?? {});
        const interactive = isTty(io.stdin);
        // Ctrl-C at a question cancels the call, as it does while the call runs (set below).
        let interrupt: (() => void) | undefined;
        const ask = ttyLineAsk(io.stdin, io.stderr, () => interrupt?.());
        // A configured provider serves plugins' sampling requests during the call (through the
        // same gates and budget as in a session); without one, sampling fails cleanly.
        const config = project.user.provider;
        const model =
          config === undefined
            ? undefined
            : (await import('@clat/provider-openai')).createOpenAiCompatibleProvider(config);
        const savedApprover = interactive
          ? undefined
          : createSavedApprover(io.stderr, project.approvals, mode);
        const run = await project.session.beginRun({
          mode,
          ...(model === undefined ? {} : { model }),
          // Without a terminal only a saved answer of this project allows what the mode asks about.
          ...(savedApprover === undefined
            ? {
                approver: createLineApprover(io.stderr, ask, project.approvals, mode),
                asker: createLineAsker(io.stderr, ask),
              }
            : { approver: savedApprover }),
        });
        const onSigint = () => run.token.cancel('cancelled by Ctrl-C');
        interrupt = onSigint;
        process.once('SIGINT', onSigint);
        const tty = redrawsInPlace(io.stderr);
        const hideToolProgress = showToolProgress(
          project.session.events,
          run.context.runId,
          io.stderr,
          { tty, prefix: 'clat: ' },
        );
        // After "Allow mcp:x:sampling?" the model may take a while: say so, on a terminal only.
        const hideSamplingWait = tty
          ? showSamplingWait(project.session.events, run.context.runId, io.stderr)
          : () => {};
        const hideProgress = () => {
          hideToolProgress();
          hideSamplingWait();
        };
        try {
          const result = await project.session.pipeline.call(name, args, run.context);
          hideProgress();
          if (values.json !== true) io.stdout.write(`${sanitizeTerminalText(result.content)}\n`);
          else if (
            jsonDepthExceeds(result.structured, LIMITS.toolResultDepth) ||
            jsonDepthExceeds(result.blocks, LIMITS.toolResultDepth)
          ) {
            // JSON.stringify recurses: a hostile result nested 100,000 deep would overflow it.
            io.stderr.write(
              `clat: the result of tool ${name} is nested more than ${LIMITS.toolResultDepth} levels deep, too deep for --json; rerun without --json to print its text\n`,
            );
            return EXIT.failed;
          } else io.stdout.write(jsonOutput(result, 'clat call'));
          return result.isError === true ? EXIT.failed : EXIT.ok;
        } catch (error) {
          // A line still drawn (the wait on the model when Ctrl-C cancelled it) goes before the error.
          hideProgress();
          if (isKernelError(error) && error.code === KernelErrorCode.TOOL_NOT_FOUND) {
            // Only servers that could own this tool were started: one that did not connect is
            // the likely reason, not a typo (one that needs login was named above).
            const down = project.session.mount
              .summary()
              .servers.filter(
                (server) => server.state === 'failed' || server.state === 'connecting',
              );
            if (down.length > 0) {
              const why = down.map((server) =>
                unavailableLine(server, mcpStatusCommand(values), true),
              );
              throw new CliError(
                CliErrorCode.CLI_SERVER_NOT_FOUND,
                `${error.message}: ${why.join('; ')}`,
              );
            }
            const skipped = skippedToolWarning(project.session.mount.summary(), name);
            if (skipped !== undefined) {
              throw new CliError(CliErrorCode.CLI_SERVER_NOT_FOUND, `${error.message}: ${skipped}`);
            }
            const meant = didYouMeanTool(
              name,
              project.session.registry.list().map((tool) => tool.name),
            );
            throw new CliError(
              CliErrorCode.CLI_USAGE,
              `${error.message}${meant}; run "${projectCommand(['tools'], values)}" for the list`,
            );
          }
          let hint = '';
          if (
            isKernelError(error) &&
            error.code === KernelErrorCode.PERMISSION_DENIED &&
            !interactive
          ) {
            hint = savedApprover?.deniedSavable
              ? ` (no terminal to ask; rerun in a terminal, where "p" allows it in this project from then on, headless too, or with a mode that allows it, e.g. --mode full-access)`
              : ` (no terminal to ask; rerun with a terminal or a mode that allows it, e.g. --mode full-access)`;
          }
          io.stderr.write(errorLine(error, hint));
          return exitCodeFor(error);
        } finally {
          hideProgress();
          process.removeListener('SIGINT', onSigint);
          await run.end();
        }
      },
    );
  },
};

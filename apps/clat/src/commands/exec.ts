/** `clat exec "<prompt>"`: one headless agent run (no approver, no question frontend). @module */
import { sanitizeTerminalLine, sanitizeTerminalText } from '@clat/kernel';
import { createOpenAiCompatibleProvider } from '@clat/provider-openai';
import { PROJECT_OPTIONS, PROJECT_USAGE, parseFlags, parseMode } from '../cli-options.js';
import type { Command } from '../command.js';
import { errorLine } from '../error-line.js';
import { CliError, CliErrorCode } from '../errors.js';
import { waitForSurface, withProject } from '../project/with-project.js';
import { AGENT_MAX_STEPS, runAgentTurn } from '../run/agent-loop.js';
import { EXIT, exitCodeFor } from '../run/exit-codes.js';
import { exhaustedLine, toolCallLine, toolResultLine } from '../ui/agent-lines.js';
import { isTty } from '../ui/line-prompt.js';
import { needsLoginLines } from '../ui/mcp-status.js';
import { showToolProgress } from '../ui/tool-progress.js';

const USAGE = `Usage: clat exec "<prompt>" [--mode <mode>] [--max-steps <n>]

Runs one headless agent turn with the provider from ~/.clat/config.json:
  { "provider": { "kind": "openai-compatible", "vendor": "glm", "model": "glm-4.6" } }
Tool calls go through the permission pipeline; effects the mode would ask about are denied
(there is no one to ask), and plugin elicitation fails cleanly. The answer goes to stdout,
tool activity to stderr. Ctrl-C cancels (exit 130).

Options:
${PROJECT_USAGE}
      --max-steps <n>  Model round trips before giving up (default ${AGENT_MAX_STEPS})
`;

export const execCommand: Command = {
  name: 'exec',
  summary: 'Run one headless agent turn with the configured model',
  usage: USAGE,
  async run(argv, io) {
    const { values, positionals } = parseFlags('exec', argv, {
      ...PROJECT_OPTIONS,
      'max-steps': { type: 'string' },
    });
    const prompt = positionals.join(' ').trim();
    if (prompt === '') throw new CliError(CliErrorCode.CLI_USAGE, 'clat exec: missing "<prompt>"');
    const maxSteps =
      values['max-steps'] === undefined ? AGENT_MAX_STEPS : Number(values['max-steps']);
    if (!Number.isInteger(maxSteps) || maxSteps < 1) {
      throw new CliError(
        CliErrorCode.CLI_USAGE,
        'clat exec: --max-steps must be a positive integer',
      );
    }
    return withProject(io, { project: values.project, trust: values.trust }, async (project) => {
      const config = project.user.provider;
      if (config === undefined) {
        throw new CliError(
          CliErrorCode.CLI_NO_PROVIDER,
          `no model provider configured; add a "provider" section to ${project.home.configFile}`,
        );
      }
      const provider = createOpenAiCompatibleProvider(config, {
        onRetry: (notice) =>
          io.stderr.write(
            `clat: provider retry ${notice.attempt} in ${notice.delayMs} ms: ${sanitizeTerminalLine(notice.error.message)}\n`,
          ),
      });
      const mode = parseMode(values.mode, project.user.mode ?? 'project-write');
      await waitForSurface(io, project);
      // Headless: never a browser; name the command so a person (or script) can log in first.
      for (const line of needsLoginLines(project.session.mount.summary()))
        io.stderr.write(`clat: ${line}\n`);
      const run = await project.session.beginRun({ mode, model: provider });
      const onSigint = () => run.token.cancel('cancelled by Ctrl-C');
      process.once('SIGINT', onSigint);
      const hideProgress = showToolProgress(project.session.events, run.context.runId, io.stderr, {
        tty: isTty(io.stderr),
        prefix: '  … ',
      });
      try {
        const result = await runAgentTurn({
          provider,
          session: project.session,
          run,
          history: [],
          prompt,
          maxSteps,
          onToolCall: (call) => io.stderr.write(toolCallLine(call)),
          onToolResult: (call, outcome) => io.stderr.write(toolResultLine(call, outcome)),
        });
        if (result.exhausted) {
          io.stderr.write(`clat: ${exhaustedLine(maxSteps)}`);
          return EXIT.failed;
        }
        io.stdout.write(`${sanitizeTerminalText(result.text.trimEnd())}\n`);
        return EXIT.ok;
      } catch (error) {
        io.stderr.write(errorLine(error));
        return exitCodeFor(error);
      } finally {
        hideProgress();
        process.removeListener('SIGINT', onSigint);
        await run.end();
      }
    });
  },
};

/** `clat exec "<prompt>"`: one headless agent run (saved approvals only, no question frontend). @module */
import type { Readable } from 'node:stream';
import { sanitizeTerminalLine, sanitizeTerminalText, type ToolResult } from '@clat/kernel';
import { type ChatToolCall, createOpenAiCompatibleProvider } from '@clat/provider-openai';
import {
  JSON_OPTION,
  MODE_OPTION,
  MODE_USAGE,
  PROJECT_OPTIONS,
  PROJECT_USAGE,
  parseFlags,
  parseMode,
} from '../cli-options.js';
import type { Command } from '../command.js';
import { errorLine } from '../error-line.js';
import { CliError, CliErrorCode } from '../errors.js';
import { waitForSurface, withProject } from '../project/with-project.js';
import { AGENT_MAX_STEPS, runAgentTurn } from '../run/agent-loop.js';
import { EXIT, exitCodeFor } from '../run/exit-codes.js';
import { exhaustedLine, toolCallLine, toolResultLine } from '../ui/agent-lines.js';
import { jsonOutput } from '../ui/json-output.js';
import { isTty, redrawsInPlace } from '../ui/line-prompt.js';
import { needsLoginLines } from '../ui/mcp-status.js';
import { showToolProgress } from '../ui/tool-progress.js';
import { createSavedApprover } from '../ui/tty-approver.js';

/** The most a prompt on stdin may hold: enough for any diff or file a model is given, and a cap
 * on what `cat` of something unintended (a binary, a log) holds in memory. */
const STDIN_PROMPT_MIB = 1;

const USAGE = `Usage: clat exec "<prompt>" [--mode <mode>] [--max-steps <n>] [--json]
       clat exec [-] < prompt.txt

Runs one headless agent turn with the provider from ~/.clat/config.json:
  { "provider": { "kind": "openai-compatible", "vendor": "glm", "model": "glm-4.6" } }
Tool calls go through the permission pipeline; effects the mode would ask about are denied
(there is no one to ask) unless "p" at an earlier prompt saved an approval of the tool for this
project, and plugin elicitation fails cleanly. The answer goes to stdout,
tool activity to stderr. Ctrl-C cancels (exit 130).

The prompt is the words after exec; "-", or no words with stdin not a terminal, reads it from
stdin instead (up to ${STDIN_PROMPT_MIB} MiB). With words stdin is not read, so pipe the whole
prompt: { echo "Review this diff:"; git diff; } | clat exec -

Options:
${PROJECT_USAGE}
${MODE_USAGE}
      --max-steps <n>  Model round trips before giving up (default ${AGENT_MAX_STEPS})
      --json           The run as one JSON document on stdout: answer (exact, null when the
                       step limit stopped it), exhausted, steps, model, toolCalls (each with
                       its arguments as the model sent them and its result or error), usage
`;

/** One tool call of the run, as `--json` reports it. */
interface ExecToolCall {
  id: string;
  name: string;
  /** The arguments as the model sent them (a JSON text, possibly invalid). */
  arguments: string;
  /** The tool's result text, when it ran (its error result too, with `isError`). */
  result?: string;
  isError?: boolean;
  /** Why it did not run: denied, unknown, invalid arguments, a host failure. */
  error?: string;
}

function execToolCall(
  call: ChatToolCall,
  outcome: { result?: ToolResult; error?: string },
): ExecToolCall {
  const out: ExecToolCall = { id: call.id, name: call.name, arguments: call.arguments };
  if (outcome.result !== undefined) {
    out.result = outcome.result.content;
    out.isError = outcome.result.isError === true;
  }
  if (outcome.error !== undefined) out.error = outcome.error;
  return out;
}

/** The prompt piped to `clat exec`: all of stdin as UTF-8, trimmed; refused when empty or too large. */
export async function readStdinPrompt(stdin: Readable): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stdin) {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer);
    size += bytes.length;
    if (size > STDIN_PROMPT_MIB * 1024 * 1024) {
      stdin.destroy();
      throw new CliError(
        CliErrorCode.CLI_USAGE,
        `clat exec: the prompt on stdin is larger than ${STDIN_PROMPT_MIB} MiB; give the model a file's path instead and let it read what it needs`,
      );
    }
    chunks.push(bytes);
  }
  const prompt = Buffer.concat(chunks).toString('utf8').trim();
  if (prompt === '') {
    throw new CliError(
      CliErrorCode.CLI_USAGE,
      'clat exec: the prompt on stdin is empty; pipe the prompt in, or give it as words after exec',
    );
  }
  return prompt;
}

export const execCommand: Command = {
  name: 'exec',
  summary: 'Run one headless agent turn with the configured model',
  usage: USAGE,
  async run(argv, io) {
    const { values, positionals } = parseFlags('exec', argv, {
      ...PROJECT_OPTIONS,
      ...MODE_OPTION,
      ...JSON_OPTION,
      'max-steps': { type: 'string' },
    });
    const words = positionals.join(' ').trim();
    const fromStdin = words === '-' || (words === '' && !isTty(io.stdin));
    if (words === '' && !fromStdin) {
      throw new CliError(
        CliErrorCode.CLI_USAGE,
        'clat exec: missing "<prompt>"; give it as words or on stdin (clat exec - < prompt.txt)',
      );
    }
    const maxSteps =
      values['max-steps'] === undefined ? AGENT_MAX_STEPS : Number(values['max-steps']);
    if (!Number.isInteger(maxSteps) || maxSteps < 1) {
      throw new CliError(
        CliErrorCode.CLI_USAGE,
        'clat exec: --max-steps must be a positive integer',
      );
    }
    // A typo in --mode is a usage error before anything else is checked or read.
    if (values.mode !== undefined) parseMode(values.mode, 'project-write');
    if (fromStdin && isTty(io.stdin))
      io.stderr.write('clat: reading the prompt from stdin (Ctrl-D ends it)\n');
    const prompt = fromStdin ? await readStdinPrompt(io.stdin) : words;
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
      // No one to ask: only a saved answer of this project ("p" at an earlier prompt) allows what
      // the mode asks about.
      const run = await project.session.beginRun({
        mode,
        model: provider,
        approver: createSavedApprover(io.stderr, project.approvals, mode),
      });
      const onSigint = () => run.token.cancel('cancelled by Ctrl-C');
      process.once('SIGINT', onSigint);
      const hideProgress = showToolProgress(project.session.events, run.context.runId, io.stderr, {
        tty: redrawsInPlace(io.stderr),
        prefix: '  … ',
      });
      const calls: ExecToolCall[] = [];
      try {
        const result = await runAgentTurn({
          provider,
          session: project.session,
          run,
          history: [],
          prompt,
          maxSteps,
          onToolCall: (call) => io.stderr.write(toolCallLine(call)),
          onToolResult: (call, outcome) => {
            io.stderr.write(toolResultLine(call, outcome));
            calls.push(execToolCall(call, outcome));
          },
        });
        if (result.exhausted) io.stderr.write(`clat: ${exhaustedLine(maxSteps)}`);
        if (values.json === true) {
          // Exact, as the model and the tools sent it: JSON escapes what a terminal would act on.
          io.stdout.write(
            jsonOutput(
              {
                answer: result.exhausted ? null : result.text,
                exhausted: result.exhausted,
                steps: result.steps,
                model: result.model ?? null,
                toolCalls: calls,
                usage: result.usage ?? null,
              },
              'clat exec',
            ),
          );
        } else if (!result.exhausted) {
          io.stdout.write(`${sanitizeTerminalText(result.text.trimEnd())}\n`);
        }
        return result.exhausted ? EXIT.failed : EXIT.ok;
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

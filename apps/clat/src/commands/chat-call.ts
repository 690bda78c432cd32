/**
 * The session's `/call`: one tool called with a JSON object or key=value arguments, as
 * `clat call` does.
 * @module
 */
import { errorMessage, type HostRun } from '@clat/kernel';
import { splitWords } from '../catalog/prompt-arguments.js';
import type { OpenedProject } from '../project/open-project.js';
import { type ProjectFlagsShown, projectCommand } from '../project/project-command.js';
import { parseKeyValueArguments } from '../run/call-arguments.js';
import { didYouMeanTool } from '../ui/did-you-mean.js';
import { foldResult } from '../ui/fold-result.js';

/** What `/call` uses of the session. */
export interface CallContext {
  readonly project: OpenedProject;
  /** The run's -C and --trust, repeated by commands the session names. */
  readonly flags: ProjectFlagsShown;
  /** The session's one output path (sanitised). */
  write(text: string): void;
  /** Runs `body` in a host run; undefined when it was cancelled or failed (both reported). */
  withRun<T>(body: (run: HostRun) => Promise<T>): Promise<T | undefined>;
}

/** How `/call` takes its arguments, as `clat call` does. */
const CALL_USAGE = "/call <tool> ['<json>' | key=value ...]";

/** `/call <tool> [args]`: one tool called through the permission pipeline in a run. */
export async function sessionCall(ctx: CallContext, rest: string): Promise<void> {
  const match = /^(\S+)\s*([\s\S]*)$/.exec(rest.trim());
  if (match === null) {
    ctx.write(`usage: ${CALL_USAGE}\n`);
    return;
  }
  const [, name = '', text = ''] = match;
  // One JSON object as typed, or key=value pairs split as a shell would (quotes group).
  let jsonArgs: unknown;
  let argWords: string[] = [];
  if (text === '') jsonArgs = {};
  else if (/^[{[]/.test(text)) {
    try {
      jsonArgs = JSON.parse(text);
    } catch (error) {
      ctx.write(`arguments are not valid JSON: ${errorMessage(error)}\n`);
      return;
    }
  } else {
    try {
      argWords = splitWords(text);
    } catch (error) {
      ctx.write(`/call: ${errorMessage(error)}\n`);
      return;
    }
  }
  await ctx.withRun(async (run) => {
    const registry = ctx.project.session.registry;
    const tool = registry.get(name);
    if (tool === undefined) {
      // After the wait for the surface: a tool of a server still connecting is there now.
      const meant = didYouMeanTool(
        name,
        registry.list().map((entry) => entry.name),
      );
      ctx.write(`tool ${JSON.stringify(name)} is not registered${meant}; /tools lists them\n`);
      return;
    }
    const args = jsonArgs ?? parseKeyValueArguments(argWords, tool.definition.inputSchema, '/call');
    const result = await ctx.project.session.pipeline.call(name, args, run.context);
    // The run's -C and --trust too: a bare `clat call` runs in another project, or is refused.
    const shown = foldResult(
      result.content,
      `"${projectCommand(['call', name], ctx.flags)}" with the same arguments`,
    );
    ctx.write(`${result.isError ? 'tool error: ' : ''}${shown}\n`);
  });
}

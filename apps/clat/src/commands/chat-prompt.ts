/**
 * A model turn of the session: typed text, or a server prompt run by its slash command.
 * @module
 */
import type { HostRun } from '@clat/kernel';
import type { ChatMessage, OpenAiCompatibleProvider } from '@clat/provider-openai';
import type { SessionCatalog } from '../catalog/session-catalog.js';
import type { OpenedProject } from '../project/open-project.js';
import { runAgentTurn } from '../run/agent-loop.js';
import { exhaustedLine, toolCallLine, toolResultLine } from '../ui/agent-lines.js';

/** What a model turn uses of the session. */
export interface PromptContext {
  readonly project: OpenedProject;
  /** The configured model; undefined when none is (or config.json has a problem). */
  readonly provider: OpenAiCompatibleProvider | undefined;
  readonly catalog: SessionCatalog;
  /** The conversation so far; each turn appends to it. */
  readonly history: ChatMessage[];
  /** The session's one output path (sanitised). */
  write(text: string): void;
  /** Runs `body` in a host run; undefined when it was cancelled or failed (both reported). */
  withRun<T>(body: (run: HostRun) => Promise<T>): Promise<T | undefined>;
}

/**
 * A model turn: typed text (with `@server:uri` mentions attached) or, for `command`, a server
 * prompt rendered by its slash command. Rendering and reads run inside the run, so Esc
 * cancels them too.
 */
export async function promptTurn(
  ctx: PromptContext,
  text: string,
  command?: { name: string; rest: string },
): Promise<void> {
  const provider = ctx.provider;
  const [configIssue] = ctx.project.user.modelIssues;
  const noProvider =
    configIssue === undefined
      ? `no model provider configured (add "provider" to ${ctx.project.home.configFile}); use /call <tool> [json | key=value ...]\n`
      : `the model cannot be used until ${ctx.project.home.configFile} is fixed: ${configIssue}; /call <tool> [json | key=value ...] works meanwhile\n`;
  if (provider === undefined && command === undefined) {
    ctx.write(noProvider);
    return;
  }
  await ctx.withRun(async (run) => {
    const signal = run.context.signal;
    let prompt = text;
    let messages: ChatMessage[] | undefined;
    if (command !== undefined) {
      const rendered = await ctx.catalog.render(command.name, command.rest, signal);
      ctx.write(rendered.shown);
      messages = rendered.messages;
    } else {
      const attached = await ctx.catalog.attach(text, signal);
      for (const note of attached.notes) ctx.write(`${note}\n`);
      if (attached.blocks.length > 0) prompt = `${text}\n\n${attached.blocks.join('\n\n')}`;
    }
    if (provider === undefined) {
      ctx.write(noProvider);
      return;
    }
    ctx.write(`asking ${provider.model}… (Esc cancels)\n`);
    let streamed = false;
    // Streamed text of a step that then calls tools may end mid-line; tool lines start a new one.
    let midLine = false;
    const newLine = () => {
      if (midLine) ctx.write('\n');
      midLine = false;
    };
    const result = await runAgentTurn({
      provider,
      session: ctx.project.session,
      run,
      history: ctx.history,
      prompt,
      ...(messages === undefined ? {} : { messages }),
      onText: (delta) => {
        streamed = true;
        ctx.write(delta);
        if (delta !== '') midLine = !delta.endsWith('\n');
      },
      onToolCall: (call) => {
        newLine();
        ctx.write(toolCallLine(call));
      },
      onToolResult: (call, outcome) => ctx.write(toolResultLine(call, outcome)),
    });
    if (result.exhausted) {
      newLine();
      ctx.write(exhaustedLine(result.steps));
    } else ctx.write(streamed ? '\n' : `${result.text}\n`);
  });
}

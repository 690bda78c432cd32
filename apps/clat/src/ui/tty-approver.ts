/** Approval prompts and `ask_user` questions on a terminal (outside the REPL's own readline). @module */
import type { Readable, Writable } from 'node:stream';
import type {
  ApprovalDecision,
  ApprovalRequest,
  Approver,
  PermissionMode,
  ToolSourceRef,
  UserAnswer,
  UserAsker,
  UserQuestion,
} from '@clat/kernel';
import { errorMessage, sanitizeTerminalLine as line, sanitizeTerminalText } from '@clat/kernel';
import type { ApprovalStore } from '../approvals/approval-store.js';
import { askLine, isYes } from './line-prompt.js';

/** `mcp:docs`, `wasm:hello`, or the bare kind for a source without an id (native tools). */
function sourceLabel(source: ToolSourceRef): string {
  return source.id === '' ? source.kind : `${source.kind}:${source.id}`;
}

/**
 * Renders the complete request: what, which effect, from where, and the full arguments. Names,
 * the reason and argument strings may come from a server or the model, so each is sanitised.
 */
export function describeApproval(request: ApprovalRequest): string {
  const source = sourceLabel(request.source);
  const args = JSON.stringify(request.arguments, null, 2) ?? 'undefined';
  return [
    `Approve ${line(request.tool)}? effect: ${request.effect}, source: ${line(source)}`,
    `  reason: ${line(request.reason.split('\n')[0] ?? '')}`,
    `  arguments: ${sanitizeTerminalText(args).replace(/\n/g, '\n  ')}`,
  ].join('\n');
}

export type LineAsk = (question: string, signal: AbortSignal) => Promise<string | undefined>;

/**
 * What lets an approver keep answers: "always this tool in this session" (in memory) and "always
 * this tool in this project" (saved, bound to the tool's effect and its server's configuration
 * digest). Only registry tools are remembered; sampling and host requests always ask.
 */
export interface ApprovalMemory {
  readonly session: Set<string>;
  readonly store: ApprovalStore;
  readonly projectRoot: string;
  digestOf(source: ApprovalRequest['source']): string | undefined;
  /** The `clat approvals reset <tool>` that forgets a saved answer, naming the run's project. */
  forgetCommand(tool: string): string;
}

/**
 * An approver over any line-asking function (the REPL passes its readline). In `mode` read-only
 * nothing remembered answers and nothing is offered to remember: that mode asks before every
 * call that is not a read, as a person choosing it expects, whatever was allowed before.
 */
export function createLineApprover(
  output: Writable,
  ask: LineAsk,
  memory?: ApprovalMemory,
  mode?: PermissionMode,
): Approver {
  return {
    async approve(request, signal): Promise<ApprovalDecision> {
      const digest = memory?.digestOf(request.source);
      const rememberable =
        memory !== undefined &&
        digest !== undefined &&
        !request.tool.includes(':') &&
        mode !== 'read-only';
      const key = `${request.tool}\u0000${request.effect}\u0000${digest}`;
      if (rememberable) {
        if (memory.session.has(key)) return { outcome: 'allow' };
        const saved = await memory.store
          .allows(memory.projectRoot, request.tool, request.effect, digest)
          .catch((error: unknown) => {
            output.write(`clat: saved approvals ignored: ${line(errorMessage(error))}\n`);
            return false;
          });
        if (saved) {
          output.write(
            `Allowed ${line(request.tool)} (${request.effect}): saved for this project; "${line(memory.forgetCommand(request.tool))}" forgets it\n`,
          );
          memory.session.add(key);
          return { outcome: 'allow' };
        }
      }
      output.write(`${describeApproval(request)}\n`);
      const answer = await ask(
        rememberable
          ? 'Allow? [y/N] (s = always this session, p = always in this project) '
          : 'Allow? [y/N] ',
        signal,
      );
      if (answer === undefined) return { outcome: 'deny', reason: 'cancelled' };
      const choice = answer.trim().toLowerCase();
      if (rememberable && (choice === 's' || choice === 'session')) {
        memory.session.add(key);
        return { outcome: 'allow' };
      }
      if (rememberable && (choice === 'p' || choice === 'project')) {
        memory.session.add(key);
        try {
          await memory.store.save(memory.projectRoot, {
            tool: request.tool,
            effect: request.effect,
            digest,
            at: new Date().toISOString(),
          });
        } catch (error) {
          output.write(`clat: the approval was not saved: ${line(errorMessage(error))}\n`);
        }
        return { outcome: 'allow' };
      }
      if (isYes(answer)) return { outcome: 'allow' };
      return { outcome: 'deny', reason: 'denied by the user' };
    },
  };
}

/**
 * The labels a multi-select answer names: numbers or labels separated by commas or spaces
 * (`1,3`, `1 3`, `red, blue`); undefined when a part matches no option.
 */
export function pickedOptions(text: string, labels: readonly string[]): string[] | undefined {
  const byName = (token: string) =>
    labels.find((label) => label.toLowerCase() === token.toLowerCase());
  const picked: string[] = [];
  for (const part of text.split(',').map((p) => p.trim())) {
    if (part === '') continue;
    const named = byName(part);
    // A part is one label, or numbers separated by spaces (`1 3`).
    const found =
      named === undefined ? part.split(/\s+/).map((n) => labels[Number(n) - 1]) : [named];
    if (named === undefined && !/^\d+(\s+\d+)*$/.test(part)) return undefined;
    for (const label of found) {
      if (label === undefined) return undefined;
      if (!picked.includes(label)) picked.push(label);
    }
  }
  return picked;
}

/** A UserAsker over a line-asking function; `undefined` (Esc, end of input) cancels. */
export function createLineAsker(output: Writable, ask: LineAsk): UserAsker {
  return {
    async ask(question: UserQuestion, signal): Promise<UserAnswer> {
      // A plugin's question says who asks, so a server cannot pass it off as CLAT's own.
      const asker =
        question.source === undefined ? '' : `${line(sourceLabel(question.source))} asks: `;
      output.write(`? ${asker}${sanitizeTerminalText(question.question)}\n`);
      const options = question.options ?? [];
      options.forEach((option, index) => {
        output.write(
          `  ${index + 1}. ${line(option.label)}${option.description ? ` — ${line(option.description)}` : ''}\n`,
        );
      });
      const multi = question.multiSelect === true && options.length > 0;
      const hint = multi
        ? `[numbers separated by commas, e.g. 1,3; empty picks ${question.defaultAnswer === undefined ? 'none' : 'the default'}]`
        : options.length > 0
          ? `[1-${options.length}${question.allowCustom ? ' or text' : ''}]`
          : '';
      const answer = await ask(
        // A default already in parentheses (the form's "(skip)") is not wrapped again.
        `${hint}${question.defaultAnswer ? ` ${/^\(.*\)$/.test(question.defaultAnswer) ? line(question.defaultAnswer) : `(${line(question.defaultAnswer)})`}` : ''}> `,
        signal,
      );
      if (answer === undefined) return { kind: 'cancelled' };
      if (multi) {
        const typed = answer.trim();
        if (typed === '' && question.defaultAnswer !== undefined) {
          return { kind: 'answer', text: question.defaultAnswer };
        }
        const labels = options.map((option) => option.label);
        const picked = pickedOptions(typed, labels);
        // An unknown part goes back as typed, so the form re-asks with a hint.
        if (picked === undefined) return { kind: 'answer', text: typed };
        return { kind: 'answer', text: picked.join(', '), selected: picked };
      }
      const text =
        answer.trim() === '' && question.defaultAnswer !== undefined
          ? question.defaultAnswer
          : answer.trim();
      if (text === '') return { kind: 'declined' };
      const index = Number.parseInt(text, 10);
      if (options.length > 0 && String(index) === text && index >= 1 && index <= options.length) {
        return { kind: 'answer', text: options[index - 1]?.label ?? text };
      }
      return { kind: 'answer', text };
    },
  };
}

/** Line asking on plain stdin/stderr (for `clat call` on a TTY). */
export function ttyLineAsk(input: Readable, output: Writable): LineAsk {
  return async (question, signal) => {
    if (signal.aborted) return undefined;
    const answer = await askLine(input, output, question, signal);
    return signal.aborted ? undefined : answer;
  };
}

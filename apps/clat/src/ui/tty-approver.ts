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
import { indentLaterLines } from './indent.js';
import { askLineOrEnd, isYes } from './line-prompt.js';

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
    `  reason: ${approvalReason(request.reason)}`,
    `  arguments: ${indentLaterLines(sanitizeTerminalText(args))}`,
  ].join('\n');
}

/** The most of a reason (a tool's description: the server's text) an approval shows. */
const REASON_CHARS = 160;

/**
 * A reason's first line, its runs of white space collapsed and cut to {@link REASON_CHARS}: a
 * description padded with spaces would otherwise fill the screen with a fake "Approve …" header
 * of its own and scroll the real one out of sight.
 */
export function approvalReason(reason: string): string {
  const first = (reason.split('\n')[0] ?? '').replace(/\s+/g, ' ').trim();
  const points = [...first];
  if (points.length <= REASON_CHARS) return line(first);
  return `${line(points.slice(0, REASON_CHARS).join(''))}…`;
}

/** The question itself names the tool again, right where the answer is typed. */
function allowQuestion(request: ApprovalRequest, rememberable: boolean): string {
  const choices = rememberable ? ' (s = always this session, p = always in this project)' : '';
  return `Allow ${line(request.tool)}? [y/N]${choices} `;
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

/** How a request may be remembered: its memory key and server digest; undefined when it may not. */
interface Remembered {
  readonly memory: ApprovalMemory;
  readonly key: string;
  readonly digest: string;
}

/**
 * Only registry tools of a configured server are remembered (sampling and host requests, named
 * `<kind>:<id>:…`, always ask), and nothing in read-only mode: that mode asks before every call
 * that is not a read, as a person choosing it expects, whatever was allowed before.
 */
function rememberedAs(
  request: ApprovalRequest,
  memory: ApprovalMemory | undefined,
  mode: PermissionMode | undefined,
): Remembered | undefined {
  if (memory === undefined || mode === 'read-only' || request.tool.includes(':')) return undefined;
  const digest = memory.digestOf(request.source);
  if (digest === undefined) return undefined;
  return { memory, digest, key: `${request.tool}\u0000${request.effect}\u0000${digest}` };
}

/**
 * True when this session or a saved answer of the project allows the request. A saved answer is
 * read from the store at each call and never copied into the session's set, so `clat approvals
 * reset` takes effect in a session already open at its next call. It is said on `output` once per
 * approver (a run): `announced` holds the keys said.
 */
async function rememberedAllows(
  request: ApprovalRequest,
  remembered: Remembered,
  output: Writable,
  announced: Set<string>,
): Promise<boolean> {
  const { memory, key, digest } = remembered;
  if (memory.session.has(key)) return true;
  const saved = await memory.store
    .allows(memory.projectRoot, request.tool, request.effect, digest)
    .catch((error: unknown) => {
      output.write(`clat: saved approvals ignored: ${line(errorMessage(error))}\n`);
      return false;
    });
  if (!saved) return false;
  if (!announced.has(key)) {
    announced.add(key);
    output.write(
      `Allowed ${line(request.tool)} (${request.effect}): saved for this project; "${line(memory.forgetCommand(request.tool))}" forgets it\n`,
    );
  }
  return true;
}

/**
 * An approver over any line-asking function (the REPL passes its readline). In `mode` read-only
 * nothing remembered answers and nothing is offered to remember.
 */
export function createLineApprover(
  output: Writable,
  ask: LineAsk,
  memory?: ApprovalMemory,
  mode?: PermissionMode,
): Approver {
  const announced = new Set<string>();
  return {
    async approve(request, signal): Promise<ApprovalDecision> {
      const remembered = rememberedAs(request, memory, mode);
      if (
        remembered !== undefined &&
        (await rememberedAllows(request, remembered, output, announced))
      ) {
        return { outcome: 'allow' };
      }
      // Asked again (a reset): a saved answer given from here on is said again.
      if (remembered !== undefined) announced.delete(remembered.key);
      output.write(`${describeApproval(request)}\n`);
      const answer = await ask(allowQuestion(request, remembered !== undefined), signal);
      if (answer === undefined) return { outcome: 'deny', reason: 'cancelled' };
      const choice = answer.trim().toLowerCase();
      if (remembered !== undefined && (choice === 's' || choice === 'session')) {
        remembered.memory.session.add(remembered.key);
        return { outcome: 'allow' };
      }
      if (remembered !== undefined && (choice === 'p' || choice === 'project')) {
        // Saved only, not in the session's set too: `clat approvals reset` must reach this
        // session. Announced already: the person just gave it.
        const { memory: kept, key, digest } = remembered;
        announced.add(key);
        try {
          await kept.store.save(kept.projectRoot, {
            tool: request.tool,
            effect: request.effect,
            digest,
            at: new Date().toISOString(),
          });
        } catch (error) {
          // Kept for this session at least, as "s" would have kept it.
          kept.session.add(key);
          output.write(
            `clat: the approval was not saved, so it holds for this session only: ${line(errorMessage(error))}\n`,
          );
        }
        return { outcome: 'allow' };
      }
      if (isYes(answer)) return { outcome: 'allow' };
      return { outcome: 'deny', reason: 'denied by the user' };
    },
  };
}

/**
 * The approver of a run with no one to ask (`clat call` and `clat exec` without a terminal): a
 * project's saved answer ("p" at an earlier prompt) still allows its tool, as Claude Code's allow
 * rules hold in `claude -p`, since that answer is the person's; everything else is denied as
 * with no approver at all. Read-only mode applies nothing remembered here either.
 */
export function createSavedApprover(
  output: Writable,
  memory: ApprovalMemory,
  mode: PermissionMode,
): SavedApprover {
  const announced = new Set<string>();
  const approver = {
    deniedSavable: false,
    async approve(request: ApprovalRequest): Promise<ApprovalDecision> {
      const remembered = rememberedAs(request, memory, mode);
      if (
        remembered !== undefined &&
        (await rememberedAllows(request, remembered, output, announced))
      ) {
        return { outcome: 'allow' };
      }
      if (remembered !== undefined) approver.deniedSavable = true;
      return { outcome: 'deny', reason: headlessReason(request.effect, remembered !== undefined) };
    },
  };
  return approver;
}

/** {@link createSavedApprover}'s approver, which also tells its caller what kind of denial it gave. */
export interface SavedApprover extends Approver {
  /**
   * True once it denied a request a saved answer could allow ("p" at a prompt in a terminal),
   * so the caller's hint can say so; false for read-only mode and requests never remembered.
   */
  readonly deniedSavable: boolean;
}

/** The end of a headless denial a saved answer could have prevented. */
const NO_SAVED_APPROVAL = 'no saved approval of this project allows it';

/** Why a headless call was denied: as the kernel says with no approver, and whether a saved answer could allow it. */
function headlessReason(effect: string, rememberable: boolean): string {
  return rememberable
    ? `${effect} needs approval, no approver is attached (headless) and ${NO_SAVED_APPROVAL}`
    : `${effect} needs approval and no approver is attached (headless)`;
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

/** Whether `text` is a whole number none of `count` options has (there being any). */
function outOfRange(text: string, count: number): boolean {
  if (count === 0 || !/^\d+$/.test(text)) return false;
  const index = Number(text);
  return index < 1 || index > count;
}

/** A UserAsker over a line-asking function; `undefined` (Esc, end of input) cancels. */
export function createLineAsker(output: Writable, ask: LineAsk): UserAsker {
  return {
    async ask(question: UserQuestion, signal): Promise<UserAnswer> {
      // A plugin's question says who asks, so a server cannot pass it off as CLAT's own.
      const asker =
        question.source === undefined ? '' : `${line(sourceLabel(question.source))} asks: `;
      // Its later lines are indented: none starts where CLAT's own prompts do.
      output.write(`? ${asker}${indentLaterLines(sanitizeTerminalText(question.question))}\n`);
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
      // A default already in parentheses (the form's "(skip)") is not wrapped again.
      const prefilled = question.defaultAnswer
        ? /^\(.*\)$/.test(question.defaultAnswer)
          ? line(question.defaultAnswer)
          : `(${line(question.defaultAnswer)})`
        : '';
      const prompt = `${[hint, prefilled].filter((part) => part !== '').join(' ')}> `;
      let answer = await ask(prompt, signal);
      if (answer === undefined) return { kind: 'cancelled' };
      // A number past the options is a typo far more often than an answer: with text allowed it
      // would have gone out as the text "7". Typed again, it is that text.
      const first = answer.trim();
      if (!multi && question.allowCustom === true && outOfRange(first, options.length)) {
        output.write(
          `  ${first} is not one of the options 1-${options.length}; type it again to answer "${first}" as text\n`,
        );
        answer = await ask(prompt, signal);
        if (answer === undefined) return { kind: 'cancelled' };
      }
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

/**
 * Line asking on plain stdin/stderr (for `clat call` on a TTY). Ctrl-C or Ctrl-D cancels the
 * question (undefined), as Esc does in the session: an empty answer would take a form field's
 * default and go on to the next, and in the end send the form. `onInterrupt` runs on Ctrl-C,
 * which the question's readline takes for itself, so the caller can cancel its run.
 */
export function ttyLineAsk(input: Readable, output: Writable, onInterrupt?: () => void): LineAsk {
  return async (question, signal) => {
    if (signal.aborted) return undefined;
    const answer = await askLineOrEnd(input, output, question, signal, onInterrupt);
    return signal.aborted ? undefined : answer;
  };
}

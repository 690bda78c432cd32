/**
 * Turns a whole-form answer (`UserAsker.askForm`) into an elicitation outcome with the same
 * per-field parser, rules and limits as typed answers, so a forwarded form is held to exactly
 * the checks a person at the terminal is. Every value is untrusted.
 * @module
 */

import { abortable } from '../cancel.js';
import type {
  ElicitationForm,
  ElicitationOutcome,
  ElicitationValue,
} from '../contract/plugin-contract.js';
import { KernelError, KernelErrorCode } from '../errors.js';
import type { FormAnswer, FormQuestion } from '../ports.js';
import { type ElicitationRules, parseAnswer } from './elicitation-flow.js';

function invalid(field: string, reason: string): KernelError {
  return new KernelError(
    KernelErrorCode.ELICITATION_INVALID_ANSWER,
    `the answer for elicitation field ${JSON.stringify(field)} ${reason}`,
  );
}

/** The typed-answer form of one plain value (the text a person would have typed). */
function typedAnswer(
  name: string,
  value: unknown,
  multiple: boolean,
): { text: string; selected?: string[] } {
  if (multiple) {
    if (!Array.isArray(value) || !value.every((item) => typeof item === 'string')) {
      throw invalid(name, 'must be a list of option labels');
    }
    return { text: '', selected: value as string[] };
  }
  if (typeof value === 'string') return { text: value };
  if (typeof value === 'number') return { text: String(value) };
  if (typeof value === 'boolean') return { text: value ? 'yes' : 'no' };
  throw invalid(
    name,
    `is a ${value === null ? 'null' : typeof value}, not a text, number or yes/no`,
  );
}

/**
 * The outcome of `answer` for `form`: decline and cancel as they are (a decline after the
 * signal aborted is a cancel), an accepted content checked field by field. Throws
 * ELICITATION_INVALID_ANSWER naming the field for a missing required value, a value of the wrong
 * type, or one the field's rules refuse.
 */
export function outcomeFromFormAnswer(
  form: ElicitationForm,
  rules: ElicitationRules,
  answer: FormAnswer,
  signal: AbortSignal,
): ElicitationOutcome {
  if (answer.action === 'cancel') return { tag: 'cancelled' };
  if (answer.action === 'decline')
    return signal.aborted ? { tag: 'cancelled' } : { tag: 'declined' };
  const content = answer.content;
  const values: [string, ElicitationValue][] = [];
  for (const field of form.fields) {
    const rule = rules[field.name] ?? {};
    const multiple = field.kind === 'choice' && rule.multiple !== undefined;
    const raw = Object.hasOwn(content, field.name) ? content[field.name] : undefined;
    if (raw === undefined) {
      // An absent optional field is left out, whatever its other rules (minItems and the like
      // constrain a value that is there).
      if (field.required) throw invalid(field.name, 'is missing (it is required)');
      continue;
    }
    const parsed = parseAnswer(field, typedAnswer(field.name, raw, multiple), rule);
    if (!parsed.ok)
      throw invalid(field.name, `(${JSON.stringify(raw)}) is refused: ${parsed.hint}`);
    if (parsed.value !== undefined) values.push([field.name, parsed.value]);
  }
  return { tag: 'accepted', val: values };
}

/**
 * Asks `question` through a frontend's `askForm` and checks the answer. `checkpoint` runs once
 * the answer arrived and throws when the run ended or moved on meanwhile (a late answer is
 * dropped).
 */
export async function askWholeForm(
  askForm: (question: FormQuestion, signal: AbortSignal) => Promise<FormAnswer>,
  question: FormQuestion,
  signal: AbortSignal,
  checkpoint: () => void,
): Promise<ElicitationOutcome> {
  const answer = await abortable(askForm(question, signal), signal, 'elicitation');
  checkpoint();
  return outcomeFromFormAnswer(question.form, question.rules, answer, signal);
}

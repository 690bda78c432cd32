/**
 * Asks an elicitation form through the one `UserAsker` port, one field at a time.
 * @module
 */
import { abortable, cancelledError } from '../cancel.js';
import type {
  ElicitationField,
  ElicitationForm,
  ElicitationOutcome,
  ElicitationValue,
} from '../contract/plugin-contract.js';
import { KernelError, KernelErrorCode } from '../errors.js';
import type { ToolSourceRef } from '../events.js';
import { isJsonObject } from '../json.js';
import { LIMITS } from '../limits.js';
import type { UserAnswer, UserAsker, UserQuestion, UserQuestionOption } from '../ports.js';

/** Extra answer checks a translator knows from its source schema (MCP `integer`, ranges…). */
export interface ElicitationFieldRule {
  integer?: boolean;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  format?: 'email' | 'uri' | 'date' | 'date-time';
  /**
   * A choice field whose answer is several options (MCP multi-select). The WIT value has no list
   * case, so its value, and its default, is `{tag: 'text', val: JSON.stringify(labels)}`.
   */
  multiple?: { minItems?: number; maxItems?: number };
}

export type ElicitationRules = Readonly<Record<string, ElicitationFieldRule>>;

export interface ElicitationFlowOptions {
  rules?: ElicitationRules;
  /** Runs after every answer; throws to stop (run ended, epoch changed). */
  checkpoint?: () => void;
  /** The plugin that asks: set on every question, so the frontend can name it. */
  source?: ToolSourceRef;
}

/** Option a user picks to leave an optional choice or yes/no field unanswered. */
export const SKIP_OPTION = '(skip)';
/** Options of a form with no fields: a plain confirmation. */
export const CONFIRM_OPTIONS = ['accept', 'decline'] as const;

function unsupported(message: string): KernelError {
  return new KernelError(KernelErrorCode.ELICITATION_UNSUPPORTED, message);
}

/** Checks a form against the supported subset; throws ELICITATION_UNSUPPORTED naming the field. */
export function validateElicitationForm(form: unknown): ElicitationForm {
  if (!isJsonObject(form)) throw unsupported('elicitation form must be an object');
  const { message, fields } = form as Record<string, unknown>;
  if (typeof message !== 'string') throw unsupported('elicitation form needs a string message');
  if (message.length > LIMITS.elicitationMessageChars) {
    throw unsupported(
      `elicitation message has ${message.length} characters, over the limit of ${LIMITS.elicitationMessageChars}`,
    );
  }
  if (!Array.isArray(fields)) throw unsupported('elicitation form needs a fields list');
  if (fields.length > LIMITS.elicitationFields) {
    throw unsupported(
      `elicitation form has ${fields.length} fields, over the limit of ${LIMITS.elicitationFields}`,
    );
  }
  const names = new Set<string>();
  for (const raw of fields as unknown[]) {
    if (!isJsonObject(raw)) throw unsupported('every elicitation field must be an object');
    const field = raw as unknown as ElicitationField;
    if (typeof field.name !== 'string' || field.name === '') {
      throw unsupported('every elicitation field needs a non-empty name');
    }
    if (names.has(field.name))
      throw unsupported(`elicitation field ${JSON.stringify(field.name)} appears twice`);
    names.add(field.name);
    if (!['text', 'number', 'boolean', 'choice'].includes(field.kind)) {
      throw unsupported(
        `elicitation field ${JSON.stringify(field.name)} has unsupported kind ${JSON.stringify(field.kind)}`,
      );
    }
    const options = Array.isArray(field.options) ? field.options : [];
    if (field.kind === 'choice') {
      if (options.length === 0)
        throw unsupported(`choice field ${JSON.stringify(field.name)} has no options`);
      if (options.length > LIMITS.elicitationChoices) {
        throw unsupported(
          `choice field ${JSON.stringify(field.name)} has ${options.length} options, over the limit of ${LIMITS.elicitationChoices}`,
        );
      }
      if (!options.every((option) => typeof option === 'string' && option !== '')) {
        throw unsupported(
          `choice field ${JSON.stringify(field.name)} has an empty or non-text option`,
        );
      }
      if (new Set(options).size !== options.length) {
        throw unsupported(`choice field ${JSON.stringify(field.name)} repeats an option`);
      }
    }
  }
  return form as unknown as ElicitationForm;
}

export type Parsed =
  | { ok: true; value: ElicitationValue | undefined }
  | { ok: false; hint: string };

const NUMBER = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

function validDate(text: string): boolean {
  const match = DATE.exec(text);
  if (match === null) return false;
  const date = new Date(`${text}T00:00:00Z`);
  return !Number.isNaN(date.getTime()) && date.toISOString().startsWith(text);
}

function checkFormat(text: string, format: ElicitationFieldRule['format']): string | undefined {
  switch (format) {
    case 'email':
      return EMAIL.test(text) ? undefined : 'enter an email address';
    case 'uri':
      try {
        new URL(text);
        return undefined;
      } catch {
        return 'enter an absolute URI';
      }
    case 'date':
      return validDate(text) ? undefined : 'enter a date as YYYY-MM-DD';
    case 'date-time':
      return /^\d{4}-\d{2}-\d{2}T/.test(text) && !Number.isNaN(Date.parse(text))
        ? undefined
        : 'enter a date and time as YYYY-MM-DDThh:mm:ssZ';
    default:
      return undefined;
  }
}

function numberHint(rule: ElicitationFieldRule): string {
  const what = rule.integer === true ? 'a whole number' : 'a number';
  if (rule.minimum !== undefined && rule.maximum !== undefined) {
    return `enter ${what} from ${rule.minimum} to ${rule.maximum}`;
  }
  if (rule.minimum !== undefined) return `enter ${what} of at least ${rule.minimum}`;
  if (rule.maximum !== undefined) return `enter ${what} of at most ${rule.maximum}`;
  return `enter ${what}`;
}

/** The labels a multi-select default names (JSON list text), when they are all options. */
function multiDefault(field: ElicitationField): string[] | undefined {
  const value = field.default;
  if (value?.tag !== 'text') return undefined;
  let labels: unknown;
  try {
    labels = JSON.parse(value.val);
  } catch {
    return undefined;
  }
  if (!Array.isArray(labels) || !labels.every((l) => field.options.includes(l as string))) {
    return undefined;
  }
  return labels as string[];
}

/** Matches one typed token to an option: its label (any case) or its 1-based number. */
function optionOf(field: ElicitationField, token: string): string | undefined {
  const exact = field.options.find((option) => option === token);
  if (exact !== undefined) return exact;
  const lowered = token.toLowerCase();
  const named = field.options.find((option) => option.toLowerCase() === lowered);
  if (named !== undefined) return named;
  const index = Number(token);
  return Number.isInteger(index) && index >= 1 ? field.options[index - 1] : undefined;
}

function parseMultiple(
  field: ElicitationField,
  answer: { text: string; selected?: string[] },
  bounds: NonNullable<ElicitationFieldRule['multiple']>,
): Parsed {
  let picked: string[] | undefined;
  const fallback = multiDefault(field);
  if (answer.selected !== undefined) {
    picked = answer.selected.map((label) => optionOf(field, label) ?? '\u0000');
  } else if (fallback !== undefined && answer.text === fallback.join(', ')) {
    picked = fallback;
  } else {
    const tokens = answer.text
      .split(/[,\n]/)
      .map((token) => token.trim())
      .filter((token) => token !== '' && token !== SKIP_OPTION);
    picked = tokens.map((token) => optionOf(field, token) ?? '\u0000');
  }
  if (picked.includes('\u0000')) return { ok: false, hint: 'pick options by number or name' };
  const unique = field.options.filter((option) => picked.includes(option));
  const min = Math.max(bounds.minItems ?? 0, field.required ? 1 : 0);
  if (unique.length < min) {
    return { ok: false, hint: `pick at least ${min} option${min === 1 ? '' : 's'}` };
  }
  if (bounds.maxItems !== undefined && unique.length > bounds.maxItems) {
    return { ok: false, hint: `pick at most ${bounds.maxItems} options` };
  }
  if (unique.length === 0) return { ok: true, value: undefined };
  return { ok: true, value: { tag: 'text', val: JSON.stringify(unique) } };
}

/** Checks one field's answer; exported for whole-form answers (`form-content.ts`). */
export function parseAnswer(
  field: ElicitationField,
  answer: { text: string; selected?: string[] },
  rule: ElicitationFieldRule,
): Parsed {
  if (field.kind === 'choice' && rule.multiple !== undefined) {
    return parseMultiple(field, answer, rule.multiple);
  }
  const text = answer.text;
  const skippable = !field.required;
  if (skippable && text === SKIP_OPTION) return { ok: true, value: undefined };
  switch (field.kind) {
    case 'text': {
      if (skippable && text === '') return { ok: true, value: undefined };
      if (rule.minLength !== undefined && text.length < rule.minLength) {
        return { ok: false, hint: `enter at least ${rule.minLength} characters` };
      }
      if (rule.maxLength !== undefined && text.length > rule.maxLength) {
        return { ok: false, hint: `enter at most ${rule.maxLength} characters` };
      }
      const formatHint = text === '' ? undefined : checkFormat(text, rule.format);
      if (formatHint !== undefined) return { ok: false, hint: formatHint };
      return { ok: true, value: { tag: 'text', val: text } };
    }
    case 'number': {
      const trimmed = text.trim();
      if (skippable && trimmed === '') return { ok: true, value: undefined };
      const value = Number(trimmed);
      const bad =
        !NUMBER.test(trimmed) ||
        !Number.isFinite(value) ||
        (rule.integer === true && !Number.isSafeInteger(value)) ||
        (rule.minimum !== undefined && value < rule.minimum) ||
        (rule.maximum !== undefined && value > rule.maximum);
      if (bad) return { ok: false, hint: numberHint(rule) };
      return { ok: true, value: { tag: 'number', val: value } };
    }
    case 'boolean': {
      const lowered = text.trim().toLowerCase();
      if (['yes', 'y', 'true'].includes(lowered))
        return { ok: true, value: { tag: 'boolean', val: true } };
      if (['no', 'n', 'false'].includes(lowered))
        return { ok: true, value: { tag: 'boolean', val: false } };
      return { ok: false, hint: 'answer yes or no' };
    }
    case 'choice': {
      const exact = field.options.find((option) => option === text);
      const match =
        exact ?? field.options.find((option) => option.toLowerCase() === text.trim().toLowerCase());
      if (match === undefined) return { ok: false, hint: 'choose one of the options' };
      return { ok: true, value: { tag: 'text', val: match } };
    }
  }
}

function defaultAnswer(field: ElicitationField, rule: ElicitationFieldRule): string | undefined {
  if (rule.multiple !== undefined) return multiDefault(field)?.join(', ');
  const value = field.default;
  if (value === undefined) return undefined;
  if (value.tag === 'boolean') return value.val ? 'yes' : 'no';
  if (value.tag === 'number') return String(value.val);
  if (field.kind === 'choice' && !field.options.includes(value.val)) return undefined;
  return value.val;
}

function questionFor(
  form: ElicitationForm,
  field: ElicitationField,
  index: number,
  hint: string | undefined,
  rule: ElicitationFieldRule,
  source: ToolSourceRef | undefined,
): UserQuestion {
  let text = index === 0 && form.message !== '' ? `${form.message}\n\n` : '';
  text += `— ${field.title ?? field.name}`;
  if (field.description !== undefined && field.description !== '') text += `: ${field.description}`;
  const prefill = defaultAnswer(field, rule);
  if (!field.required) text += ' (optional)';
  // A frontend takes an empty answer to a question without a default as a refusal of the whole
  // form: said here, since it declined the form without a word.
  else if (prefill === undefined) text += ' (required; an empty answer declines the form)';
  if (hint !== undefined) text += ` [${hint}]`;
  const question: UserQuestion = { question: text };
  if (source !== undefined) question.source = source;
  let options: UserQuestionOption[] | undefined;
  if (field.kind === 'boolean') options = [{ label: 'yes' }, { label: 'no' }];
  if (field.kind === 'choice') options = field.options.map((label) => ({ label }));
  const multiple = field.kind === 'choice' && rule.multiple !== undefined;
  if (options !== undefined) {
    if (!field.required && !multiple)
      options.push({ label: SKIP_OPTION, description: 'leave this field empty' });
    question.options = options;
    question.allowCustom = false;
    if (multiple) question.multiSelect = true;
  }
  if (prefill !== undefined) question.defaultAnswer = prefill;
  // An optional field without a default: an empty answer (Enter) leaves it empty. A frontend
  // takes an empty answer to a question without a default as a refusal of the whole form, which
  // threw away the fields already answered.
  else if (!field.required && !multiple) question.defaultAnswer = SKIP_OPTION;
  return question;
}

/**
 * Asks every field in order. Esc (`cancelled`) cancels the form; a refusal (`declined`) declines
 * it, or cancels it when `signal` already aborted. An answer that stays invalid after
 * `LIMITS.elicitationNumberRetries` re-asks throws ELICITATION_INVALID_ANSWER.
 */
export async function askElicitationForm(
  form: ElicitationForm,
  asker: UserAsker,
  signal: AbortSignal,
  options: ElicitationFlowOptions = {},
): Promise<ElicitationOutcome> {
  const checkpoint = () => {
    if (signal.aborted) throw cancelledError(signal, 'elicitation');
    options.checkpoint?.();
  };
  const closed = (answer: UserAnswer): ElicitationOutcome | undefined => {
    if (answer.kind === 'cancelled') return { tag: 'cancelled' };
    if (answer.kind === 'declined')
      return signal.aborted ? { tag: 'cancelled' } : { tag: 'declined' };
    return undefined;
  };
  checkpoint();
  if (form.fields.length === 0) {
    const confirm: UserQuestion = {
      question: form.message,
      options: CONFIRM_OPTIONS.map((label) => ({ label })),
      allowCustom: false,
    };
    if (options.source !== undefined) confirm.source = options.source;
    const answer = await asker.ask(confirm, signal);
    checkpoint();
    const done = closed(answer);
    if (done !== undefined) return done;
    const text = (answer as { text: string }).text.trim().toLowerCase();
    return text === 'decline' || text === 'no' ? { tag: 'declined' } : { tag: 'accepted', val: [] };
  }
  const values: [string, ElicitationValue][] = [];
  for (const [index, field] of form.fields.entries()) {
    const rule = options.rules?.[field.name] ?? {};
    let hint: string | undefined;
    let last = '';
    for (let attempt = 0; ; attempt++) {
      const answer = await abortable(
        asker.ask(questionFor(form, field, index, hint, rule, options.source), signal),
        signal,
        'elicitation',
      );
      checkpoint();
      const done = closed(answer);
      if (done !== undefined) return done;
      const given = answer as { text: string; selected?: string[] };
      last = given.text;
      const parsed = parseAnswer(field, given, rule);
      if (parsed.ok) {
        if (parsed.value !== undefined) values.push([field.name, parsed.value]);
        break;
      }
      if (attempt >= LIMITS.elicitationNumberRetries) {
        throw new KernelError(
          KernelErrorCode.ELICITATION_INVALID_ANSWER,
          `answer ${JSON.stringify(last)} for field ${JSON.stringify(field.name)} is still invalid after ${LIMITS.elicitationNumberRetries} re-asks (${parsed.hint})`,
          { data: { field: field.name } },
        );
      }
      hint = parsed.hint;
    }
  }
  return { tag: 'accepted', val: values };
}

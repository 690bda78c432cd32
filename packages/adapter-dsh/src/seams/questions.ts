/**
 * `ctx.userQuestions.ask` over MCP `elicitation/create`: one flat form per ask, with
 * spec-shaped schemas (single-select = string `enum`, titled through `oneOf` when options carry
 * descriptions) and the spec's `accept | decline | cancel` actions.
 * @module
 */
import { isJsonObject, LIMITS } from '@clat/kernel';
import { ElicitResultSchema } from '@modelcontextprotocol/core';
import { DshAdapterError, DshErrorCode } from '../errors.js';
import type { HostLink } from '../host-link.js';

export interface AskOption {
  label: string;
  description?: string;
}

export interface AskItem {
  id: string;
  question: string;
  detail?: string;
  header?: string;
  options?: AskOption[];
  multiSelect?: boolean;
  intent?: { kind: string; approve?: string };
}

export interface AskRequest {
  questions: AskItem[];
  agent?: unknown;
  signal?: AbortSignal;
}

export interface AskAnswer {
  answers: { id: string; selected: string[]; custom?: string }[];
}

interface PlannedField {
  item: AskItem;
  field: string;
  kind: 'single' | 'multi' | 'free';
  labels: string[];
}

/** Characters that separate the picks of a multi-select answer typed as text. */
const MULTI_SEPARATORS = /[,，;；]/;

/** `[A-Za-z0-9_]` only, underscores trimmed, `q` when empty, `_2`, `_3`… on collisions. */
export function fieldNames(ids: string[]): string[] {
  const used = new Set<string>();
  return ids.map((id) => {
    const base = id.replace(/[^A-Za-z0-9_]/g, '_').replace(/^_+|_+$/g, '') || 'q';
    let name = base;
    for (let n = 2; used.has(name); n += 1) name = `${base}_${n}`;
    used.add(name);
    return name;
  });
}

function planForm(request: AskRequest): PlannedField[] {
  if (!isJsonObject(request) || !Array.isArray(request.questions)) {
    throw new DshAdapterError(
      DshErrorCode.EMPTY_QUESTIONS,
      'userQuestions.ask needs a questions array',
    );
  }
  if (request.agent !== undefined) {
    throw new DshAdapterError(
      DshErrorCode.AGENT_ASK_UNSUPPORTED,
      'userQuestions.ask cannot address an agent; CLAT asks the user of the current run',
    );
  }
  const { questions } = request;
  if (questions.length === 0)
    throw new DshAdapterError(DshErrorCode.EMPTY_QUESTIONS, 'userQuestions.ask got no questions');
  if (questions.length > LIMITS.elicitationFields) {
    throw new DshAdapterError(
      DshErrorCode.TOO_MANY_QUESTIONS,
      `userQuestions.ask got ${questions.length} questions; one form holds at most ${LIMITS.elicitationFields}`,
    );
  }
  const names = fieldNames(questions.map((q) => (typeof q?.id === 'string' ? q.id : '')));
  return questions.map((item, index) => {
    if (!isJsonObject(item) || typeof item.question !== 'string' || item.question.trim() === '') {
      throw new DshAdapterError(
        DshErrorCode.BAD_REQUEST,
        `question ${index} needs a question text`,
      );
    }
    const options = Array.isArray(item.options) ? item.options : [];
    if (options.length > LIMITS.elicitationChoices) {
      throw new DshAdapterError(
        DshErrorCode.TOO_MANY_OPTIONS,
        `question ${item.id} has ${options.length} options; at most ${LIMITS.elicitationChoices} fit one field`,
      );
    }
    const labels = options.map((option, n) => {
      if (!isJsonObject(option) || typeof option.label !== 'string' || option.label === '') {
        throw new DshAdapterError(
          DshErrorCode.BAD_REQUEST,
          `option ${n} of question ${item.id} needs a label`,
        );
      }
      return option.label;
    });
    if (item.intent !== undefined) {
      const intent = item.intent as { kind?: unknown; approve?: unknown };
      if (
        intent.kind !== 'plan-review' ||
        typeof intent.approve !== 'string' ||
        !labels.includes(intent.approve)
      ) {
        throw new DshAdapterError(
          DshErrorCode.BAD_INTENT,
          `question ${item.id} has intent ${JSON.stringify(item.intent)}; only plan-review with an approve label among its options is supported`,
        );
      }
    }
    const kind = labels.length === 0 ? 'free' : item.multiSelect === true ? 'multi' : 'single';
    return { item, field: names[index] as string, kind, labels };
  });
}

/** The `elicitation/create` params (form mode) for one ask. */
export function buildElicitation(request: AskRequest): {
  params: Record<string, unknown>;
  plan: PlannedField[];
} {
  const plan = planForm(request);
  const properties: Record<string, Record<string, unknown>> = {};
  for (const { item, field, kind, labels } of plan) {
    const schema: Record<string, unknown> = { type: 'string', title: item.header ?? item.question };
    const description = [item.header === undefined ? undefined : item.question, item.detail]
      .filter((part): part is string => typeof part === 'string' && part !== '')
      .join('\n');
    if (kind === 'single') {
      schema.enum = labels;
      const options = item.options ?? [];
      if (
        options.some(
          (option) => typeof option.description === 'string' && option.description !== '',
        )
      ) {
        schema.oneOf = options.map((option) => ({
          const: option.label,
          title: option.description ? `${option.label} — ${option.description}` : option.label,
        }));
      }
    } else if (kind === 'multi') {
      const hint = `Choose one or more of: ${labels.join(', ')} (separate with commas)`;
      schema.description = description === '' ? hint : `${description}\n${hint}`;
    }
    if (kind !== 'multi' && description !== '') schema.description = description;
    properties[field] = schema;
  }
  const first = plan[0] as PlannedField;
  return {
    params: {
      mode: 'form',
      message: first.item.question,
      requestedSchema: { type: 'object', properties, required: plan.map((p) => p.field) },
    },
    plan,
  };
}

function matchLabel(labels: string[], text: string): string | undefined {
  const wanted = text.trim().toLowerCase();
  return labels.find((label) => label.toLowerCase() === wanted);
}

/** Maps an accepted form's content back to DSH answers. */
export function parseAnswers(plan: PlannedField[], result: Record<string, unknown>): AskAnswer {
  const parsed = ElicitResultSchema.safeParse(result);
  if (!parsed.success) {
    throw new DshAdapterError(
      DshErrorCode.BAD_RESPONSE,
      `elicitation/create returned an invalid result: ${parsed.error.message}`,
    );
  }
  const { action } = parsed.data;
  if (action === 'decline')
    throw new DshAdapterError(DshErrorCode.USER_DECLINED, 'the user declined the question');
  if (action === 'cancel')
    throw new DshAdapterError(DshErrorCode.USER_CANCELLED, 'the user cancelled the question');
  if (action !== 'accept') {
    throw new DshAdapterError(
      DshErrorCode.BAD_RESPONSE,
      `elicitation/create answered with action ${String(action)}`,
    );
  }
  const content = parsed.data.content ?? {};
  return {
    answers: plan.map(({ item, field, kind, labels }) => {
      const raw = content[field];
      const text =
        raw === undefined || raw === null ? '' : Array.isArray(raw) ? raw.join(', ') : String(raw);
      if (kind === 'free')
        return text === ''
          ? { id: item.id, selected: [] }
          : { id: item.id, selected: [], custom: text };
      const parts = kind === 'multi' ? text.split(MULTI_SEPARATORS) : [text];
      const selected: string[] = [];
      const leftovers: string[] = [];
      for (const part of parts) {
        if (part.trim() === '') continue;
        const label = matchLabel(labels, part);
        if (label === undefined) leftovers.push(part.trim());
        else if (!selected.includes(label)) selected.push(label);
      }
      return leftovers.length > 0
        ? { id: item.id, selected, custom: leftovers.join(', ') }
        : { id: item.id, selected };
    }),
  };
}

export interface UserQuestionsService {
  ask(request: AskRequest): Promise<AskAnswer>;
  askTimed(...args: unknown[]): Promise<never>;
}

export function createUserQuestionsService(link: HostLink): UserQuestionsService {
  return {
    async ask(request: AskRequest): Promise<AskAnswer> {
      const { params, plan } = buildElicitation(request);
      const scope = link.requireCall(
        'userQuestions.ask',
        'elicitation',
        DshErrorCode.NO_ELICITATION,
      );
      const result = await link.request(scope, 'elicitation/create', params, request.signal);
      return parseAnswers(plan, result);
    },
    async askTimed(): Promise<never> {
      throw new DshAdapterError(
        DshErrorCode.TIMED_ASK_UNSUPPORTED,
        'userQuestions.askTimed needs late-answer routing that MCP elicitation does not have; use ask()',
      );
    },
  };
}

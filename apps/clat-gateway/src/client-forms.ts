/**
 * Questions for a person, forwarded to the gateway's MCP client as form elicitations: a plugin's
 * whole elicitation form (one dialog, not one per field) and `ask_user` questions the client's
 * own calls raise. Forms go out as MCP `requestedSchema`s; every answer is untrusted — the
 * kernel checks a form's values as it checks typed answers.
 * @module
 */
import type {
  ElicitationField,
  ElicitationFieldRule,
  FormAnswer,
  FormQuestion,
  UserAnswer,
  UserAsker,
  UserQuestion,
} from '@clat/kernel';
import type { InputRequest } from '@modelcontextprotocol/server';
import type { AskClient } from './client-asks.js';
import { GatewayError, GatewayErrorCode } from './errors.js';

type Property = Record<string, unknown>;

/**
 * A form elicitation request. The properties come from a form the kernel already checked (text,
 * number, boolean and enum fields only), which is the MCP schema subset; the SDK's union type
 * cannot follow that through a switch, hence the one cast.
 */
function formRequest(
  message: string,
  properties: Record<string, Property>,
  required: string[],
): InputRequest {
  return {
    method: 'elicitation/create',
    params: { mode: 'form', message, requestedSchema: { type: 'object', properties, required } },
  } as unknown as InputRequest;
}

/** The multi-select default of a kernel field: its value is a JSON list of labels. */
function listDefault(field: ElicitationField): string[] | undefined {
  if (field.default?.tag !== 'text') return undefined;
  try {
    const labels: unknown = JSON.parse(field.default.val);
    return Array.isArray(labels) && labels.every((label) => typeof label === 'string')
      ? labels
      : undefined;
  } catch {
    return undefined;
  }
}

/** One kernel field as an MCP elicitation property (the schema subset MCP clients render). */
export function propertyOf(field: ElicitationField, rule: ElicitationFieldRule): Property {
  const property: Property = {};
  if (field.title !== undefined) property.title = field.title;
  if (field.description !== undefined) property.description = field.description;
  const value = field.default?.val;
  switch (field.kind) {
    case 'text':
      property.type = 'string';
      if (rule.minLength !== undefined) property.minLength = rule.minLength;
      if (rule.maxLength !== undefined) property.maxLength = rule.maxLength;
      if (rule.format !== undefined) property.format = rule.format;
      if (typeof value === 'string') property.default = value;
      break;
    case 'number':
      property.type = rule.integer === true ? 'integer' : 'number';
      if (rule.minimum !== undefined) property.minimum = rule.minimum;
      if (rule.maximum !== undefined) property.maximum = rule.maximum;
      if (typeof value === 'number') property.default = value;
      break;
    case 'boolean':
      property.type = 'boolean';
      if (typeof value === 'boolean') property.default = value;
      break;
    case 'choice':
      if (rule.multiple !== undefined) {
        property.type = 'array';
        property.items = { type: 'string', enum: [...field.options] };
        if (rule.multiple.minItems !== undefined) property.minItems = rule.multiple.minItems;
        if (rule.multiple.maxItems !== undefined) property.maxItems = rule.multiple.maxItems;
        const labels = listDefault(field);
        if (labels !== undefined) property.default = labels;
      } else {
        property.type = 'string';
        property.enum = [...field.options];
        if (typeof value === 'string' && field.options.includes(value)) property.default = value;
      }
      break;
  }
  return property;
}

/**
 * Sends one form to the client. A failure that is not the caller giving up (the SDK refusing an
 * answer that breaks the form's schema, a client that dropped) becomes one coded sentence, not
 * an internal error.
 */
async function askClientForm(
  ask: AskClient,
  request: InputRequest,
  signal: AbortSignal,
): Promise<unknown> {
  try {
    return await ask(request, signal);
  } catch (error) {
    if (signal.aborted) throw error;
    throw new GatewayError(
      GatewayErrorCode.CLIENT_ASK_FAILED,
      `the MCP client's answer to the form was refused: ${error instanceof Error ? error.message : String(error)}`,
      { cause: error },
    );
  }
}

/** The client's elicitation result as a form answer; anything else is refused in one sentence. */
function formAnswerOf(result: unknown): FormAnswer {
  const answer = (typeof result === 'object' && result !== null ? result : {}) as {
    action?: unknown;
    content?: unknown;
  };
  if (answer.action === 'decline' || answer.action === 'cancel') return { action: answer.action };
  if (answer.action === 'accept') {
    const content = answer.content ?? {};
    if (typeof content !== 'object' || content === null || Array.isArray(content)) {
      throw new Error(
        'the MCP client accepted the elicitation with a content that is not an object',
      );
    }
    return { action: 'accept', content: content as Record<string, unknown> };
  }
  throw new Error(
    `the MCP client answered the elicitation with action ${JSON.stringify(answer.action)} (expected accept, decline or cancel)`,
  );
}

/** Asks a plugin's whole form as one elicitation of the calling client. */
export function clientFormAsker(
  ask: AskClient,
): (question: FormQuestion, signal: AbortSignal) => Promise<FormAnswer> {
  return async ({ form, rules, source }, signal) => {
    // Keyed by a plugin's field names, without a prototype (a field named `__proto__` stays one).
    const properties: Record<string, Property> = Object.create(null);
    const required: string[] = [];
    for (const field of form.fields) {
      const rule = Object.hasOwn(rules, field.name) ? rules[field.name] : undefined;
      properties[field.name] = propertyOf(field, rule ?? {});
      if (field.required) required.push(field.name);
    }
    // Says who asks: the client shows one dialog for the whole chain of servers.
    const message = `${source.kind} plugin ${JSON.stringify(source.id)} asks (through CLAT): ${form.message}`;
    const result = await askClientForm(ask, formRequest(message, properties, required), signal);
    return formAnswerOf(result);
  };
}

/** `ask_user` questions of the client's own calls, each as a one-field form. */
export function clientQuestionAsker(ask: AskClient): UserAsker {
  return {
    async ask(question: UserQuestion, signal: AbortSignal): Promise<UserAnswer> {
      const labels = question.options?.map((option) => option.label);
      const property: Property = { type: 'string', title: 'Answer' };
      if (labels !== undefined && question.multiSelect === true) {
        property.type = 'array';
        property.items = { type: 'string', enum: labels };
      } else if (labels !== undefined && question.allowCustom !== true) {
        property.enum = labels;
      } else if (labels !== undefined) {
        property.description = `Suggestions: ${labels.join(', ')}`;
      }
      if (question.defaultAnswer !== undefined && property.type === 'string') {
        property.default = question.defaultAnswer;
      }
      const answer = formAnswerOf(
        await askClientForm(
          ask,
          formRequest(question.question, { answer: property }, ['answer']),
          signal,
        ),
      );
      if (answer.action === 'decline') return { kind: 'declined' };
      if (answer.action === 'cancel') return { kind: 'cancelled' };
      const value = answer.content.answer;
      if (Array.isArray(value) && value.every((item) => typeof item === 'string')) {
        return { kind: 'answer', text: value.join(', '), selected: value };
      }
      if (typeof value === 'string') return { kind: 'answer', text: value };
      throw new Error('the MCP client accepted the question without a text answer');
    },
  };
}

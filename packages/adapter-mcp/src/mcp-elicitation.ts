/**
 * MCP `elicitation/create` (form mode) ⇄ the contract's ElicitationForm/Outcome. Titled enums
 * become choice fields showing titles; answers map back to the server's `const` values.
 * Multi-selects (2025-11-25) are choice fields with a `multiple` rule and answer string lists.
 * @module
 */
import {
  type ElicitationField,
  type ElicitationFieldRule,
  type ElicitationForm,
  type ElicitationOutcome,
  type ElicitationValue,
  isJsonObject,
  KernelError,
  KernelErrorCode,
  LIMITS,
} from '@clat/kernel';

/** `elicitation/create` result. `content` only on accept. */
export interface McpElicitResult {
  action: 'accept' | 'decline' | 'cancel';
  content?: Record<string, string | number | boolean | string[]>;
  [key: string]: unknown;
}

export interface McpElicitationTranslation {
  form: ElicitationForm;
  /** Checks the flat MCP schema states beyond the contract (integer, ranges, lengths, formats). */
  rules: Record<string, ElicitationFieldRule>;
  /** Maps the outcome back, turning choice labels into the server's enum values. */
  toMcpResult(outcome: ElicitationOutcome): McpElicitResult;
}

function unsupported(message: string, field?: string): KernelError {
  return new KernelError(KernelErrorCode.ELICITATION_UNSUPPORTED, message, {
    ...(field === undefined ? {} : { data: { field } }),
  });
}

const FORMATS = ['email', 'uri', 'date', 'date-time'] as const;

function optionalString(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

function finite(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

/** Choices of a single-select field as `{label, value}`; undefined when the property is no enum. */
function choicesOf(
  name: string,
  schema: Record<string, unknown>,
  titled: 'oneOf' | 'anyOf' = 'oneOf',
): { label: string; value: string }[] | undefined {
  const quoted = JSON.stringify(name);
  const entries = schema[titled];
  if (Array.isArray(entries)) {
    return entries.map((entry: unknown) => {
      if (!isJsonObject(entry) || typeof entry.const !== 'string') {
        throw unsupported(`field ${quoted} has a ${titled} entry without a string const`, name);
      }
      return { label: optionalString(entry.title) ?? entry.const, value: entry.const };
    });
  }
  if (titled === 'oneOf' && schema.anyOf !== undefined) {
    throw unsupported(
      `field ${quoted} uses anyOf, which CLAT supports only as a titled single choice (oneOf)`,
      name,
    );
  }
  const values = Array.isArray(schema.enum)
    ? schema.enum
    : Array.isArray(schema.enumValues)
      ? schema.enumValues
      : undefined;
  if (values === undefined) return undefined;
  if (!values.every((value) => typeof value === 'string')) {
    throw unsupported(
      `field ${quoted} has a non-string enum value; CLAT supports string enums only`,
      name,
    );
  }
  const names = Array.isArray(schema.enumNames) ? schema.enumNames : undefined;
  if (
    names !== undefined &&
    (names.length !== values.length || !names.every((n) => typeof n === 'string'))
  ) {
    throw unsupported(`field ${quoted} has enumNames that do not match its enum values`, name);
  }
  return (values as string[]).map((value, index) => ({
    label: optionalString(names?.[index]) ?? value,
    value,
  }));
}

/** Makes labels unique by suffixing the value of repeated ones. */
function uniqueLabels(
  choices: { label: string; value: string }[],
): { label: string; value: string }[] {
  const counts = new Map<string, number>();
  for (const choice of choices) counts.set(choice.label, (counts.get(choice.label) ?? 0) + 1);
  const out = choices.map((choice) =>
    (counts.get(choice.label) ?? 0) > 1
      ? { ...choice, label: `${choice.label} (${choice.value})` }
      : choice,
  );
  if (new Set(out.map((choice) => choice.label)).size !== out.length) {
    return choices.map((choice) => ({ label: choice.value, value: choice.value }));
  }
  return out;
}

/**
 * Translates form-mode `elicitation/create` params. Supported: flat string, number, integer and
 * boolean properties; single-choice enums as plain `enum`, titled `oneOf: [{const, title}]` or
 * legacy `enum` + `enumNames`; multi-select arrays of an `enum` or a titled `anyOf` (with
 * `minItems`/`maxItems`); `default` on every kind; `required`. Nested objects and other shapes
 * throw ELICITATION_UNSUPPORTED naming the field, as does a form over the field or choice
 * limits. URL mode is served by url-elicitation.ts, not here.
 */
export function elicitationFromMcp(params: unknown): McpElicitationTranslation {
  if (!isJsonObject(params)) throw unsupported('elicitation/create params must be an object');
  if (params.mode !== undefined && params.mode !== 'form') {
    throw unsupported(
      `elicitation mode ${JSON.stringify(params.mode)} is not supported; CLAT serves form and url`,
    );
  }
  if (typeof params.message !== 'string')
    throw unsupported('elicitation/create needs a string message');
  const schema = params.requestedSchema;
  if (!isJsonObject(schema)) throw unsupported('elicitation/create needs a requestedSchema object');
  if (schema.type !== undefined && schema.type !== 'object') {
    throw unsupported(
      `requestedSchema must have type "object", got ${JSON.stringify(schema.type)}`,
    );
  }
  const properties = schema.properties ?? {};
  if (!isJsonObject(properties)) throw unsupported('requestedSchema.properties must be an object');
  const entries = Object.entries(properties);
  if (entries.length > LIMITS.elicitationFields) {
    throw unsupported(
      `elicitation form has ${entries.length} fields, over the limit of ${LIMITS.elicitationFields}`,
    );
  }
  const required = new Set(
    Array.isArray(schema.required)
      ? schema.required.filter((name): name is string => typeof name === 'string')
      : [],
  );
  const fields: ElicitationField[] = [];
  // Maps keyed by a server's field names, without a prototype: a field named `__proto__` is an
  // own entry like any other, not a change of the map's prototype that loses it.
  const rules: Record<string, ElicitationFieldRule> = Object.create(null);
  const choiceValues = new Map<string, Map<string, string>>();
  const multiFields = new Set<string>();
  for (const [name, raw] of entries) {
    const quoted = JSON.stringify(name);
    if (!isJsonObject(raw)) throw unsupported(`field ${quoted} must be a schema object`, name);
    const type = raw.type;
    if (type === 'array') {
      const multi = multiSelectOf(name, raw, required.has(name));
      fields.push(multi.field);
      rules[name] = multi.rule;
      choiceValues.set(name, multi.values);
      multiFields.add(name);
      continue;
    }
    if (type === 'object' || raw.properties !== undefined || raw.items !== undefined) {
      throw unsupported(
        `field ${quoted} is a nested schema; CLAT supports flat primitive fields only`,
        name,
      );
    }
    if (Array.isArray(type))
      throw unsupported(`field ${quoted} has several types; use exactly one`, name);
    const base: Pick<ElicitationField, 'name' | 'required'> & Partial<ElicitationField> = {
      name,
      required: required.has(name),
    };
    const title = optionalString(raw.title);
    const description = optionalString(raw.description);
    if (title !== undefined) base.title = title;
    if (description !== undefined) base.description = description;
    const choices = type === undefined || type === 'string' ? choicesOf(name, raw) : undefined;
    let field: ElicitationField;
    if (choices !== undefined) {
      if (choices.length === 0) throw unsupported(`choice field ${quoted} has no options`, name);
      if (choices.length > LIMITS.elicitationChoices) {
        throw unsupported(
          `choice field ${quoted} has ${choices.length} options, over the limit of ${LIMITS.elicitationChoices}`,
          name,
        );
      }
      const labelled = uniqueLabels(choices);
      choiceValues.set(name, new Map(labelled.map((choice) => [choice.label, choice.value])));
      field = { ...base, kind: 'choice', options: labelled.map((choice) => choice.label) };
      const fallback = labelled.find((choice) => choice.value === raw.default);
      if (fallback !== undefined) field.default = { tag: 'text', val: fallback.label };
    } else if (type === 'string') {
      field = { ...base, kind: 'text', options: [] };
      if (typeof raw.default === 'string') field.default = { tag: 'text', val: raw.default };
      const rule: ElicitationFieldRule = {};
      const minLength = finite(raw.minLength);
      const maxLength = finite(raw.maxLength);
      if (minLength !== undefined) rule.minLength = minLength;
      if (maxLength !== undefined) rule.maxLength = maxLength;
      const format = FORMATS.find((known) => known === raw.format);
      if (format !== undefined) rule.format = format;
      if (Object.keys(rule).length > 0) rules[name] = rule;
    } else if (type === 'number' || type === 'integer') {
      field = { ...base, kind: 'number', options: [] };
      const fallback = finite(raw.default);
      if (fallback !== undefined) field.default = { tag: 'number', val: fallback };
      const rule: ElicitationFieldRule = {};
      if (type === 'integer') rule.integer = true;
      const minimum = finite(raw.minimum);
      const maximum = finite(raw.maximum);
      if (minimum !== undefined) rule.minimum = minimum;
      if (maximum !== undefined) rule.maximum = maximum;
      if (Object.keys(rule).length > 0) rules[name] = rule;
    } else if (type === 'boolean') {
      field = { ...base, kind: 'boolean', options: [] };
      if (typeof raw.default === 'boolean') field.default = { tag: 'boolean', val: raw.default };
    } else {
      throw unsupported(
        `field ${quoted} has unsupported type ${JSON.stringify(type)}; use string, number, integer, boolean or a string enum`,
        name,
      );
    }
    fields.push(field);
  }
  const form: ElicitationForm = { message: params.message, fields };
  return {
    form,
    rules,
    toMcpResult(outcome) {
      if (outcome.tag !== 'accepted') return elicitationResultToMcp(outcome);
      const content: Record<string, string | number | boolean | string[]> = Object.create(null);
      for (const [name, value] of outcome.val) {
        const mapped = choiceValues.get(name);
        if (multiFields.has(name) && value.tag === 'text') {
          const labels = JSON.parse(value.val) as string[];
          content[name] = labels.map((label) => mapped?.get(label) ?? label);
          continue;
        }
        content[name] =
          mapped !== undefined && value.tag === 'text'
            ? (mapped.get(value.val) ?? value.val)
            : value.val;
      }
      return { action: 'accept', content };
    },
  };
}

/**
 * A multi-select property: `{type: "array", items: {type: "string", enum}}` or
 * `items: {anyOf: [{const, title}]}`, with optional `minItems`, `maxItems` and a `default` list.
 */
function multiSelectOf(
  name: string,
  raw: Record<string, unknown>,
  required: boolean,
): {
  field: ElicitationField;
  rule: ElicitationFieldRule;
  values: Map<string, string>;
} {
  const quoted = JSON.stringify(name);
  const items = raw.items;
  if (!isJsonObject(items)) {
    throw unsupported(`multi-select field ${quoted} needs an items schema`, name);
  }
  if (items.type !== undefined && items.type !== 'string') {
    throw unsupported(
      `multi-select field ${quoted} has items of type ${JSON.stringify(items.type)}; CLAT supports string choices only`,
      name,
    );
  }
  const choices = Array.isArray(items.anyOf)
    ? choicesOf(name, items, 'anyOf')
    : Array.isArray(items.oneOf)
      ? choicesOf(name, items, 'oneOf')
      : choicesOf(name, items);
  if (choices === undefined) {
    throw unsupported(
      `multi-select field ${quoted} needs items with an enum or an anyOf of {const, title}`,
      name,
    );
  }
  if (choices.length === 0) throw unsupported(`choice field ${quoted} has no options`, name);
  if (choices.length > LIMITS.elicitationChoices) {
    throw unsupported(
      `choice field ${quoted} has ${choices.length} options, over the limit of ${LIMITS.elicitationChoices}`,
      name,
    );
  }
  const labelled = uniqueLabels(choices);
  const field: ElicitationField = {
    name,
    required,
    kind: 'choice',
    options: labelled.map((choice) => choice.label),
  };
  const title = optionalString(raw.title);
  const description = optionalString(raw.description);
  if (title !== undefined) field.title = title;
  if (description !== undefined) field.description = description;
  const multiple: NonNullable<ElicitationFieldRule['multiple']> = {};
  const minItems = finite(raw.minItems);
  const maxItems = finite(raw.maxItems);
  if (minItems !== undefined) multiple.minItems = minItems;
  if (maxItems !== undefined) multiple.maxItems = maxItems;
  if (Array.isArray(raw.default)) {
    const labels = raw.default.map(
      (value: unknown) => labelled.find((choice) => choice.value === value)?.label,
    );
    if (labels.every((label): label is string => label !== undefined)) {
      field.default = { tag: 'text', val: JSON.stringify(labels) };
    }
  }
  return {
    field,
    rule: { multiple },
    values: new Map(labelled.map((choice) => [choice.label, choice.value])),
  };
}

/** Maps an outcome to MCP without enum translation (the plain contract shape). */
export function elicitationResultToMcp(outcome: ElicitationOutcome): McpElicitResult {
  if (outcome.tag === 'declined') return { action: 'decline' };
  if (outcome.tag === 'cancelled') return { action: 'cancel' };
  const content: Record<string, string | number | boolean | string[]> = Object.create(null);
  for (const [name, value] of outcome.val as [string, ElicitationValue][])
    content[name] = value.val;
  return { action: 'accept', content };
}

/**
 * Tool arguments checked against the guest's declared input schema before the guest runs, so a
 * guest never sees arguments its author did not allow (Ajv: draft-07 by default, 2019-09 and
 * 2020-12 when the schema says so).
 * @module
 */
import type { JsonObject } from '@clat/kernel';
import { Ajv, type ErrorObject, type Options, type ValidateFunction } from 'ajv';
import { Ajv2019 } from 'ajv/dist/2019.js';
import { Ajv2020 } from 'ajv/dist/2020.js';

/** Returns undefined when the arguments fit, else one sentence naming the first bad field. */
export type ArgumentValidator = (args: JsonObject) => string | undefined;

const OPTIONS: Options = {
  // Guest schemas come from many generators (zod, typebox, hand-written): unknown keywords and
  // formats are ignored rather than refused, and nothing is logged or cached by $id.
  strict: false,
  validateFormats: false,
  addUsedSchema: false,
  logger: false,
  allErrors: false,
};

type Engine = Pick<Ajv, 'compile'>;
let draft7: Engine | undefined;
let draft2019: Engine | undefined;
let draft2020: Engine | undefined;

function engineFor(dialect: unknown): Engine {
  if (typeof dialect === 'string' && dialect.includes('2020-12')) {
    draft2020 ??= new Ajv2020(OPTIONS);
    return draft2020;
  }
  if (typeof dialect === 'string' && dialect.includes('2019-09')) {
    draft2019 ??= new Ajv2019(OPTIONS);
    return draft2019;
  }
  draft7 ??= new Ajv(OPTIONS);
  return draft7;
}

/**
 * Builds the default (draft-07) engine and compiles one schema, so Ajv's own first-use cost
 * (tens of ms in a fresh process) is paid while the caller waits on other work, such as a guest
 * worker booting, instead of after it.
 */
export function warmArgumentValidators(): void {
  engineFor(undefined).compile({ type: 'object' });
}

/**
 * Compiles a tool's input schema. Throws (with Ajv's reason) when the schema itself is not a
 * valid JSON Schema or references something outside itself.
 */
export function compileArgumentValidator(schema: JsonObject): ArgumentValidator {
  const { $schema, ...rest } = schema;
  const validate: ValidateFunction = engineFor($schema).compile(rest);
  return (args) => (validate(args) ? undefined : describeError(validate.errors?.[0]));
}

function fieldName(instancePath: string, child?: unknown): string {
  const segments = instancePath
    .split('/')
    .slice(1)
    .map((segment) => segment.replaceAll('~1', '/').replaceAll('~0', '~'));
  if (typeof child === 'string') segments.push(child);
  return JSON.stringify(segments.join('.'));
}

function describeError(error: ErrorObject | undefined): string {
  if (error === undefined) return 'the arguments do not match the input schema';
  const { instancePath, keyword, params, message } = error;
  if (keyword === 'required') {
    return `field ${fieldName(instancePath, params.missingProperty)} is required`;
  }
  if (keyword === 'additionalProperties') {
    return `field ${fieldName(instancePath, params.additionalProperty)} is not allowed`;
  }
  const what = message ?? `fails ${keyword}`;
  if (keyword === 'enum' && Array.isArray(params.allowedValues)) {
    const allowed = params.allowedValues.map((value: unknown) => JSON.stringify(value)).join(', ');
    return instancePath === ''
      ? `the arguments must be one of ${allowed}`
      : `field ${fieldName(instancePath)} must be one of ${allowed}`;
  }
  return instancePath === '' ? `the arguments ${what}` : `field ${fieldName(instancePath)} ${what}`;
}

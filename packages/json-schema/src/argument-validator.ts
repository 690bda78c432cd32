/**
 * Tool arguments checked against a tool's declared input schema before the tool runs, so a
 * plugin never sees arguments its author did not allow (Ajv: draft-07 by default, 2019-09 and
 * 2020-12 when the schema says so). The WASM adapter checks every guest call with it.
 * @module
 */
import { Ajv, type ErrorObject, type Options, type ValidateFunction } from 'ajv';
import { Ajv2019 } from 'ajv/dist/2019.js';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { AJV_OPTIONS } from './ajv-options.mjs';
import { dialectOf, type SchemaDialect, schemaProblem } from './meta-schema.js';

/** A JSON object: a tool's input schema, or the arguments of one call. */
type JsonRecord = Readonly<Record<string, unknown>>;

/** Returns undefined when the arguments fit, else one sentence naming the first bad field. */
export type ArgumentValidator = (args: JsonRecord) => string | undefined;

/**
 * The meta-schema is checked by the precompiled validator of the dialect (meta-schema.ts): Ajv
 * compiling a meta-schema at run time cost 25-60 ms of CPU at the first tool schema of each
 * process, inside every WASM plugin load of a fresh `clat`.
 */
const ENGINE_OPTIONS: Options = { ...AJV_OPTIONS, validateSchema: false };

const engines = new Map<SchemaDialect, Pick<Ajv, 'compile'>>();

function engineFor(dialect: SchemaDialect): Pick<Ajv, 'compile'> {
  let engine = engines.get(dialect);
  if (engine === undefined) {
    engine =
      dialect === '2020-12'
        ? new Ajv2020(ENGINE_OPTIONS)
        : dialect === '2019-09'
          ? new Ajv2019(ENGINE_OPTIONS)
          : new Ajv(ENGINE_OPTIONS);
    engines.set(dialect, engine);
  }
  return engine;
}

/**
 * Builds the default (draft-07) engine and compiles one schema, so Ajv's own first-use cost
 * (a few ms in a fresh process) is paid while the caller waits on other work, such as a guest
 * worker booting, instead of after it.
 */
export function warmArgumentValidators(): void {
  compileArgumentValidator({ type: 'object' });
}

/**
 * Compiles a tool's input schema, written in `fallback` (draft-07 unless the caller says) when
 * its `$schema` names no dialect. Throws (with Ajv's reason) when the schema itself is not a
 * valid JSON Schema or references something outside itself.
 */
export function compileArgumentValidator(
  schema: JsonRecord,
  fallback: SchemaDialect = 'draft-07',
): ArgumentValidator {
  const problem = schemaProblem(schema, fallback);
  if (problem !== undefined) throw new Error(`schema is invalid: ${problem}`);
  const { $schema, ...rest } = schema;
  const validate: ValidateFunction = engineFor(dialectOf($schema, fallback)).compile(rest);
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

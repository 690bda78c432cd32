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
import { AJV_OPTIONS } from './ajv-options.mjs';
import { validate as validateDraft7 } from './gen/draft-07.mjs';
import { validate as validate2019 } from './gen/draft-2019-09.mjs';
import { validate as validate2020 } from './gen/draft-2020-12.mjs';

/** Returns undefined when the arguments fit, else one sentence naming the first bad field. */
export type ArgumentValidator = (args: JsonObject) => string | undefined;

/** The meta-schema is checked by the precompiled validator of the dialect (see {@link Dialect}). */
const ENGINE_OPTIONS: Options = { ...AJV_OPTIONS, validateSchema: false };

/**
 * One dialect: its Ajv (which does not compile the meta-schema itself) and the meta-schema's
 * validator, compiled ahead of time by Ajv's standalone generator with the same options
 * (src/gen, `pnpm meta-validators`). Ajv compiling a meta-schema at run time cost 25-60 ms of
 * CPU at the first tool schema of each process, inside every WASM plugin load of a fresh `clat`.
 */
interface Dialect {
  readonly ajv: Pick<Ajv, 'compile' | 'errorsText'>;
  readonly meta: typeof validateDraft7;
}

let draft7: Dialect | undefined;
let draft2019: Dialect | undefined;
let draft2020: Dialect | undefined;

function dialectFor(dialect: unknown): Dialect {
  if (typeof dialect === 'string' && dialect.includes('2020-12')) {
    draft2020 ??= { ajv: new Ajv2020(ENGINE_OPTIONS), meta: validate2020 };
    return draft2020;
  }
  if (typeof dialect === 'string' && dialect.includes('2019-09')) {
    draft2019 ??= { ajv: new Ajv2019(ENGINE_OPTIONS), meta: validate2019 };
    return draft2019;
  }
  draft7 ??= { ajv: new Ajv(ENGINE_OPTIONS), meta: validateDraft7 };
  return draft7;
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
 * Compiles a tool's input schema. Throws (with Ajv's reason) when the schema itself is not a
 * valid JSON Schema or references something outside itself.
 */
export function compileArgumentValidator(schema: JsonObject): ArgumentValidator {
  const { $schema, ...rest } = schema;
  const { ajv, meta } = dialectFor($schema);
  // The check and the message Ajv makes itself when it validates a schema (`validateSchema`).
  if (!meta(rest)) throw new Error(`schema is invalid: ${ajv.errorsText(meta.errors)}`);
  const validate: ValidateFunction = ajv.compile(rest);
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

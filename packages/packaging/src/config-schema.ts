/**
 * Plugin configuration checked against the manifest's `configSchema` with Ajv (JSON Schema
 * 2020-12), own properties only, so prototype keys never satisfy `required`.
 * @module
 */

import type { JsonValue } from '@clat/kernel';
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import { PackagingError } from './errors.js';

// One compiler for every schema; compiled validators are cached by schema object identity.
const ajv = new Ajv2020({
  allErrors: false,
  // Author schemas may carry annotations and vendor keywords Ajv does not know.
  strict: false,
  ownProperties: true,
  // A schema never fetches anything: no loadSchema, so a remote $ref fails compilation.
  validateFormats: false,
});
const compiled = new WeakMap<object, ValidateFunction>();

/** Compiles a configSchema or throws MANIFEST_INVALID naming the schema problem. */
export function compileConfigSchema(
  schema: Record<string, unknown>,
  label = 'configSchema',
): ValidateFunction {
  const cached = compiled.get(schema);
  if (cached !== undefined) return cached;
  const declared = schema.$schema;
  if (declared !== undefined && declared !== 'https://json-schema.org/draft/2020-12/schema') {
    throw new PackagingError(
      'MANIFEST_INVALID',
      `${label}.$schema ${JSON.stringify(declared)} is not supported; use JSON Schema 2020-12`,
    );
  }
  let validate: ValidateFunction;
  try {
    validate = ajv.compile(schema);
  } catch (error) {
    throw new PackagingError(
      'MANIFEST_INVALID',
      `${label} is not a valid JSON Schema 2020-12: ${(error as Error).message}`,
      { cause: error },
    );
  } finally {
    // Ajv registers schemas carrying an $id; forget them so two packages may reuse one.
    if (typeof schema.$id === 'string') ajv.removeSchema(schema.$id);
  }
  compiled.set(schema, validate);
  return validate;
}

function describeError(error: ErrorObject): string {
  const at = error.instancePath === '' ? 'the config' : `config${error.instancePath}`;
  const params = error.params as Record<string, unknown>;
  if (error.keyword === 'additionalProperties') {
    return `${at} has unknown field ${JSON.stringify(params.additionalProperty)}`;
  }
  if (error.keyword === 'required') {
    return `${at} is missing required field ${JSON.stringify(params.missingProperty)}`;
  }
  return `${at} ${error.message ?? 'is invalid'}`;
}

/** The first problem of `config` against `schema`, as one sentence, or undefined when valid. */
export function configSchemaProblem(
  schema: Record<string, unknown>,
  config: JsonValue,
  label?: string,
): string | undefined {
  const validate = compileConfigSchema(schema, label);
  if (validate(config)) return undefined;
  const [first] = validate.errors ?? [];
  return first === undefined ? 'the config is invalid' : describeError(first);
}

/** Keys a configSchema lists in a top-level `required` (used to explain an absent config). */
export function requiredKeys(schema: Record<string, unknown>): string[] {
  return Array.isArray(schema.required)
    ? schema.required.filter((key): key is string => typeof key === 'string')
    : [];
}

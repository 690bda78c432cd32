/**
 * Plugin configuration checked against the manifest's `configSchema` with Ajv (JSON Schema
 * 2020-12), own properties only, so prototype keys never satisfy `required`.
 * @module
 */

import type { JsonValue, PluginManifest } from '@clat/kernel';
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

/** The JSON Schema a manifest's `userConfig` implies (types, bounds, required without default). */
function userConfigSchema(manifest: PluginManifest): Record<string, unknown> | undefined {
  const fields = manifest.userConfig;
  if (fields === undefined) return undefined;
  const properties: Record<string, unknown> = {};
  const required: string[] = [];
  for (const [key, field] of Object.entries(fields)) {
    let schema: Record<string, unknown>;
    if (field.type === 'number') {
      schema = { type: 'number' };
      if (field.min !== undefined) schema.minimum = field.min;
      if (field.max !== undefined) schema.maximum = field.max;
    } else if (field.type === 'boolean') schema = { type: 'boolean' };
    else schema = { type: 'string' };
    properties[key] = field.multiple === true ? { type: 'array', items: schema } : schema;
    if (field.required === true && field.default === undefined) required.push(key);
  }
  return { type: 'object', properties, required };
}

/** The first problem of `config` against the manifest's `userConfig`, or undefined. */
export function userConfigProblem(
  manifest: PluginManifest,
  config: JsonValue | undefined,
): string | undefined {
  const schema = userConfigSchema(manifest);
  if (schema === undefined) return undefined;
  const required = schema.required as string[];
  if (config === undefined && required.length > 0) {
    return `missing required setting(s) ${required.map((k) => JSON.stringify(k)).join(', ')} (use --config key=value)`;
  }
  return configSchemaProblem(schema, config ?? {}, 'userConfig');
}

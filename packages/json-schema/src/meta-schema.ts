/**
 * Whether a JSON Schema is itself valid, by the meta-schema of its dialect: draft-07, 2019-09 or
 * 2020-12, chosen by its `$schema` (else the caller's default). The validators are compiled ahead
 * of time by Ajv's standalone generator (src/gen, `pnpm meta-validators`), so this check loads no
 * Ajv engine and compiles nothing: a few microseconds per tool schema, cheap enough for every tool
 * a server lists.
 * @module
 */
import type { ErrorObject } from 'ajv';
import { validate as validateDraft7 } from './gen/draft-07.mjs';
import { validate as validate2019 } from './gen/draft-2019-09.mjs';
import { validate as validate2020 } from './gen/draft-2020-12.mjs';

/** The JSON Schema dialects a tool schema may be written in. */
export type SchemaDialect = 'draft-07' | '2019-09' | '2020-12';

/** A meta-schema's validator: true when the schema is valid, else `errors` says why. */
type MetaValidator = ((schema: unknown) => boolean) & {
  errors?: ErrorObject[] | null;
};

const META: Readonly<Record<SchemaDialect, MetaValidator>> = {
  'draft-07': validateDraft7,
  '2019-09': validate2019,
  '2020-12': validate2020,
};

/** The dialect a schema's `$schema` names; `fallback` when it names none of the three. */
export function dialectOf($schema: unknown, fallback: SchemaDialect): SchemaDialect {
  if (typeof $schema === 'string') {
    if ($schema.includes('2020-12')) return '2020-12';
    if ($schema.includes('2019-09')) return '2019-09';
    if ($schema.includes('draft-07')) return 'draft-07';
  }
  return fallback;
}

/**
 * Ajv's own wording of validation errors (`ajv.errorsText`): each error's place under `dataVar`
 * and its message, comma-separated, so a schema refused here reads as Ajv would word it.
 */
export function errorsText(
  errors: readonly ErrorObject[] | null | undefined,
  dataVar = 'data',
): string {
  if (errors === null || errors === undefined || errors.length === 0) return 'No errors';
  return errors.map((error) => `${dataVar}${error.instancePath} ${error.message}`).join(', ');
}

/**
 * Why `schema` is not a valid JSON Schema of its dialect (`$schema`, else `fallback`), worded as
 * Ajv words it with `dataVar` as the schema's name; undefined when it is valid. `$schema` itself
 * is not checked: a dialect outside the three is read as `fallback`, as Ajv would refuse to
 * compile it at all. The schema must be bounded in depth by the caller (the validator recurses).
 */
export function schemaProblem(
  schema: Readonly<Record<string, unknown>>,
  fallback: SchemaDialect,
  dataVar = 'data',
): string | undefined {
  const { $schema, ...rest } = schema;
  const meta = META[dialectOf($schema, fallback)];
  return meta(rest) ? undefined : errorsText(meta.errors, dataVar);
}

import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { Ajv, type AnySchemaObject, type Options } from 'ajv';
import { Ajv2019 } from 'ajv/dist/2019.js';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { AJV_OPTIONS } from './ajv-options.mjs';
import { compileArgumentValidator } from './argument-validator.js';

/** What Ajv itself says of a schema when it compiles the meta-schema at run time. */
function runtimeVerdict(engine: { compile(schema: AnySchemaObject): unknown }, schema: object) {
  try {
    engine.compile(schema);
    return 'ok';
  } catch (error) {
    return (error as Error).message;
  }
}

function ourVerdict(schema: Record<string, unknown>) {
  try {
    compileArgumentValidator(schema as Parameters<typeof compileArgumentValidator>[0]);
    return 'ok';
  } catch (error) {
    return (error as Error).message;
  }
}

// Valid and invalid schemas, each meant to reach another part of the meta-schemas.
const SCHEMAS: Record<string, unknown>[] = [
  { type: 'object', properties: { text: { type: 'string', minLength: 1 } }, required: ['text'] },
  { type: 'no-such-type' },
  { type: ['string', 'nope'] },
  { type: 'object', properties: { a: { type: 'strin' } } },
  { type: 'object', required: 'text' },
  { type: 'object', required: ['a', 'a'] },
  { enum: [] },
  { enum: [1, 1] },
  { minLength: -1 },
  { maxItems: 1.5 },
  { items: [{ type: 'string' }, 3] },
  { additionalProperties: 'no' },
  { properties: { a: { $ref: '#/definitions/x' } }, definitions: { x: { type: 4 } } },
  { properties: { a: { $ref: '#/$defs/x' } }, $defs: { x: { type: 'integer' } } },
  { allOf: [] },
  { anyOf: [{ type: 'string' }, { minimum: 'zero' }] },
  // Parsed: an object literal with a `then` key reads as a thenable to the linter.
  JSON.parse('{"if": {"type": "string"}, "then": {"minLength": 2}, "else": 5}'),
  { prefixItems: [{ type: 'string' }], items: false },
  { dependentRequired: { a: ['b', 'b'] } },
  { unevaluatedProperties: { type: 'string' }, properties: { a: {} } },
  { $id: 'https://example.com/tool.json', description: 3 },
  { pattern: 7 },
  { propertyNames: { maxLength: 'x' } },
  { contains: { const: 1 }, minContains: -2 },
];

describe.each([
  ['draft-07', undefined, Ajv],
  ['2019-09', 'https://json-schema.org/draft/2019-09/schema', Ajv2019],
  ['2020-12', 'https://json-schema.org/draft/2020-12/schema', Ajv2020],
] as const)('the precompiled %s meta-schema validator', (_name, dialect, Engine) => {
  const runtime = new Engine({ ...AJV_OPTIONS } satisfies Options);

  it.each(SCHEMAS.map((schema) => [JSON.stringify(schema), schema] as const))(
    'judges %s as Ajv does when it compiles the meta-schema itself',
    (_label, schema) => {
      const withDialect = dialect === undefined ? schema : { $schema: dialect, ...schema };
      expect(ourVerdict(withDialect)).toBe(runtimeVerdict(runtime, schema));
    },
  );
});

describe('src/gen', () => {
  it('matches a fresh generation from the installed Ajv (run "pnpm meta-validators" after updating Ajv)', () => {
    // Throws with the script's message (naming the stale files) when the check fails.
    execFileSync(process.execPath, ['scripts/meta-validators.mjs', '--check'], {
      cwd: fileURLToPath(new URL('..', import.meta.url)),
      stdio: 'pipe',
    });
  }, 60_000);

  it('refuses an invalid schema with the meta-schema reason', () => {
    expect(() => compileArgumentValidator({ type: 'no-such-type' })).toThrow(
      /^schema is invalid: data\/type must be equal to one of the allowed values/,
    );
  });
});

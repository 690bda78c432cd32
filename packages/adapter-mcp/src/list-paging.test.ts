import { LIMITS } from '@clat/kernel';
import { describe, expect, it } from 'vitest';
import { readToolDescriptors } from './list-paging.js';

/** An object of `depth` levels, built iteratively (a recursive builder would overflow first). */
function nested(depth: number): Record<string, unknown> {
  let schema: Record<string, unknown> = { type: 'object' };
  for (let level = 1; level < depth; level++) schema = { type: 'object', not: schema };
  return schema;
}

describe('readToolDescriptors', () => {
  it('skips a tool whose output schema nests deeper than the schema limit, naming it', () => {
    const diagnostics: string[] = [];
    const tools = readToolDescriptors(
      'srv',
      [
        { name: 'deep', outputSchema: nested(20_000) },
        { name: 'over', outputSchema: nested(LIMITS.toolSchemaDepth + 1) },
        { name: 'at_limit', outputSchema: nested(LIMITS.toolSchemaDepth) },
        { description: 'no name' },
      ],
      (message) => diagnostics.push(message),
    );
    expect(tools.map((tool) => tool.name)).toEqual(['at_limit']);
    expect(diagnostics).toEqual([
      `tool "deep" of MCP server "srv" skipped: its output schema nests more than ${LIMITS.toolSchemaDepth} levels deep (the limit)`,
      `tool "over" of MCP server "srv" skipped: its output schema nests more than ${LIMITS.toolSchemaDepth} levels deep (the limit)`,
      'MCP server "srv" listed a tool without a name; skipped',
    ]);
  });

  it('skips a tool whose input schema cannot be offered, naming why; keeps every valid dialect', () => {
    const diagnostics: string[] = [];
    const valid2020 = {
      type: 'object',
      $defs: { path: { $anchor: 'path', type: 'string', minLength: 1 } },
      properties: {
        path: { $ref: '#path' },
        pair: { type: 'array', prefixItems: [{ type: 'string' }, { type: 'number' }] },
        // if/then/else, as JSON: an object literal with `then` would be a thenable.
        mode: JSON.parse('{"if":{"const":"a"},"then":{"type":"string"},"else":{"type":"number"}}'),
      },
      required: ['path'],
      additionalProperties: false,
    };
    const draft07 = {
      $schema: 'http://json-schema.org/draft-07/schema#',
      type: 'object',
      definitions: { n: { type: 'integer' } },
      properties: { n: { $ref: '#/definitions/n' }, list: { items: [{ type: 'string' }] } },
    };
    const tools = readToolDescriptors(
      'srv',
      [
        { name: 'none' },
        { name: 'plain', inputSchema: { type: 'object' } },
        { name: 'untyped', inputSchema: { properties: { a: { type: 'string' } } } },
        { name: 'modern', inputSchema: valid2020 },
        { name: 'draft07', inputSchema: draft07 },
        { name: 'deep', inputSchema: nested(20_000) },
        { name: 'text', inputSchema: 'a string' },
        { name: 'scalar', inputSchema: { type: 'string' } },
        { name: 'typo', inputSchema: { type: 'object', properties: { a: { type: 'strng' } } } },
        { name: 'required', inputSchema: { type: 'object', required: 'a' } },
        {
          name: 'long',
          inputSchema: { type: 'object', properties: { ['x'.repeat(5_000)]: { type: 1 } } },
        },
      ],
      (message) => diagnostics.push(message),
    );
    // The deep one is the registry's to refuse, by the depth limit (checking it would recurse).
    expect(tools.map((tool) => tool.name)).toEqual([
      'none',
      'plain',
      'untyped',
      'modern',
      'draft07',
      'deep',
    ]);
    expect(tools[0]?.inputSchema).toEqual({ type: 'object' });
    expect(tools[3]?.inputSchema).toBe(valid2020);
    const skipped = 'of MCP server "srv" skipped: its input schema';
    expect(diagnostics.slice(0, 4)).toEqual([
      `tool "text" ${skipped} is not a JSON object`,
      `tool "scalar" ${skipped} has "type": "string", and a tool's arguments are an object ("type": "object")`,
      `tool "typo" ${skipped} is not valid JSON Schema (inputSchema/properties/a/type must be equal to one of the allowed values, inputSchema/properties/a/type must be array, inputSchema/properties/a/type must match a schema in anyOf)`,
      `tool "required" ${skipped} is not valid JSON Schema (inputSchema/required must be array)`,
    ]);
    // A server's property name is quoted in part only.
    expect(diagnostics[4]).toMatch(/^tool "long" of MCP server "srv" skipped: .*x…\)$/);
    expect(diagnostics[4]?.length).toBeLessThan(400);
  });
});

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
});

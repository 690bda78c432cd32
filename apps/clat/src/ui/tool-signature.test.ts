import type { ToolDefinition } from '@clat/kernel';
import { describe, expect, it } from 'vitest';
import { formatToolDetails, signatureOf, typeOf, wrap } from './tool-signature.js';

const tool = (inputSchema: unknown, description = 'Reads a file.'): ToolDefinition =>
  ({
    name: 'mcp_fs_read',
    description,
    inputSchema,
    effect: 'external-read',
    source: { kind: 'mcp', id: 'fs' },
  }) as ToolDefinition;

describe('tool signatures', () => {
  it('renders required, optional, defaults, enums, arrays and unions', () => {
    const schema = {
      type: 'object',
      properties: {
        path: { type: 'string', description: 'File to read' },
        lines: { type: 'integer', default: 100 },
        mode: { enum: ['text', 'base64'] },
        tags: { type: 'array', items: { type: 'string' } },
        either: { anyOf: [{ type: 'string' }, { type: 'null' }] },
      },
      required: ['path'],
    };
    expect(signatureOf(tool(schema))).toBe(
      'mcp_fs_read(path: string, lines?: integer = 100, mode?: "text" | "base64", tags?: string[], either?: string | null)',
    );
    expect(typeOf({ type: 'array', items: { enum: ['a', 'b'] } })).toBe('("a" | "b")[]');
  });

  it('wraps the full description and lists each argument', () => {
    const text = formatToolDetails(
      [
        tool(
          {
            type: 'object',
            properties: { path: { type: 'string', description: 'x '.repeat(30) } },
            required: ['path'],
          },
          'word '.repeat(40),
        ),
      ],
      40,
    );
    for (const line of text.split('\n')) expect(line.length).toBeLessThanOrEqual(40);
    expect(text).toContain('  arguments:\n    path (required): string\n      x x x');
  });

  it('makes control sequences in names and descriptions visible', () => {
    const hostile = tool(
      { type: 'object', properties: { 'a\u001b[2J': { type: 'string' } } },
      'ok\u001b]52;c;AAAA\u0007',
    );
    const text = formatToolDetails([hostile]);
    expect(text).not.toContain('\u001b');
    expect(text).toContain('\\x1b');
    expect(wrap('a\u202eb', 80, '')).toEqual(['a\\u202eb']);
  });

  it('wraps by terminal columns and breaks a word longer than a line', () => {
    // 20 CJK characters take 40 columns: at 24 columns with a 4-space indent, two lines.
    expect(wrap('漢'.repeat(20), 24, '    ')).toEqual([
      `    ${'漢'.repeat(10)}`,
      `    ${'漢'.repeat(10)}`,
    ]);
    expect(wrap(`see https://example.test/${'p'.repeat(40)} now`, 30, '  ')).toEqual([
      '  see',
      `  https://example.test/${'p'.repeat(7)}`,
      `  ${'p'.repeat(28)}`,
      `  ${'p'.repeat(5)} now`,
    ]);
  });
});

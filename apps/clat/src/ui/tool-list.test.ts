import type { ToolDefinition } from '@clat/kernel';
import { describe, expect, it } from 'vitest';
import { columnsOf } from './columns.js';
import { formatTools, inSurfaceOrder } from './tool-list.js';

const tool = (name: string, description: string) =>
  ({
    name,
    description,
    effect: 'write',
    source: { kind: 'mcp', id: 'everything' },
  }) as unknown as ToolDefinition;

const TOOLS = [
  tool(
    'mcp_everything_trigger_sampling_request',
    'Trigger a Request from the Server for LLM Sampling '.repeat(3),
  ),
  tool('mcp_everything_echo', 'Echoes back the input'),
];

describe('formatTools', () => {
  it('fits each row into a terminal, cutting the description to what is left', () => {
    const rows = formatTools(TOOLS, 120).trimEnd().split('\n').slice(1);
    for (const row of rows) expect(columnsOf(row)).toBeLessThan(120);
    expect(rows[0]).toMatch(/Trigger a Request.*…$/);
    expect(rows[1]).toMatch(/Echoes back the input$/);
  });

  it('leaves descriptions out of a terminal too narrow for them', () => {
    const rows = formatTools(TOOLS, 80).trimEnd().split('\n').slice(1);
    expect(rows[1]).toBe(
      '  mcp_everything_echo                      write          mcp:everything',
    );
  });

  it('cuts at 80 columns of description for a pipe or a file', () => {
    const [, first] = formatTools(TOOLS).split('\n');
    expect(first).toContain('Trigger a Request');
    expect(columnsOf(first ?? '')).toBeGreaterThan(120);
  });
});

describe('inSurfaceOrder', () => {
  const from = (name: string, kind: string, id: string) =>
    ({ name, source: { kind, id } }) as unknown as ToolDefinition;

  it('puts native tools first, then servers in configuration order, each in its own order', () => {
    // Registration order: whichever server answered first.
    const registered = [
      from('mcp_fast_b', 'mcp', 'fast'),
      from('read_file', 'native', ''),
      from('mcp_fast_a', 'mcp', 'fast'),
      from('summarize', 'wasm', 'summarize'),
      from('elsewhere', 'other', 'unlisted'),
      from('mcp_slow_z', 'mcp', 'slow'),
      from('mcp_slow_y', 'mcp', 'slow'),
      from('search', 'native', ''),
    ];
    const servers = [{ name: 'slow' }, { name: 'summarize' }, { name: 'fast' }];
    expect(inSurfaceOrder(registered, servers).map((entry) => entry.name)).toEqual([
      'read_file',
      'search',
      'mcp_slow_z',
      'mcp_slow_y',
      'summarize',
      'mcp_fast_b',
      'mcp_fast_a',
      'elsewhere',
    ]);
    expect(registered[0]?.name).toBe('mcp_fast_b');
  });
});

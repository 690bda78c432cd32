import { qualifyToolName } from '@clat/kernel';
import { describe, expect, it } from 'vitest';
import { canOwnTool } from './select-entries.js';

describe('canOwnTool', () => {
  it('matches the normalised server segment of MCP and WASM tool names', () => {
    expect(canOwnTool({ name: 'my-notes', kind: 'mcp' }, 'mcp_my_notes_add')).toBe(true);
    expect(canOwnTool({ name: 'my-notes', kind: 'mcp' }, 'mcp_other_add')).toBe(false);
    expect(canOwnTool({ name: 'sum', kind: 'wasm' }, 'wasm_sum_run')).toBe(true);
    expect(canOwnTool({ name: 'sum', kind: 'mcp' }, 'wasm_sum_run')).toBe(false);
    expect(canOwnTool({ name: 'notes', kind: 'mcp' }, 'read_file')).toBe(false);
  });

  it('still matches hashed long names', () => {
    const server = 'a-server-with-a-really-long-name-that-goes-on-and-on-forever';
    const tool = qualifyToolName('mcp', server, 'and_a_long_tool_name_too');
    expect(tool.length).toBe(64);
    expect(canOwnTool({ name: server, kind: 'mcp' }, tool)).toBe(true);
    expect(canOwnTool({ name: 'a-server', kind: 'mcp' }, tool)).toBe(true);
    expect(canOwnTool({ name: 'b-server', kind: 'mcp' }, tool)).toBe(false);
  });
});

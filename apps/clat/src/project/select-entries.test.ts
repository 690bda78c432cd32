import { qualifyToolName } from '@clat/kernel';
import { describe, expect, it } from 'vitest';
import { canOwnTool } from './select-entries.js';

describe('canOwnTool', () => {
  it('matches the normalised server segment of MCP and WASM tool names', () => {
    expect(canOwnTool({ name: 'my-notes', transport: 'stdio' }, 'mcp_my_notes_add')).toBe(true);
    expect(canOwnTool({ name: 'my-notes', transport: 'http' }, 'mcp_other_add')).toBe(false);
    expect(canOwnTool({ name: 'sum', transport: 'wasm' }, 'wasm_sum_run')).toBe(true);
    expect(canOwnTool({ name: 'sum', transport: 'stdio' }, 'wasm_sum_run')).toBe(false);
    expect(canOwnTool({ name: 'notes', transport: 'stdio' }, 'read_file')).toBe(false);
  });

  it('still matches hashed long names', () => {
    const server = 'a-server-with-a-really-long-name-that-goes-on-and-on-forever';
    const tool = qualifyToolName('mcp', server, 'and_a_long_tool_name_too');
    expect(tool.length).toBe(64);
    expect(canOwnTool({ name: server, transport: 'stdio' }, tool)).toBe(true);
    expect(canOwnTool({ name: 'a-server', transport: 'stdio' }, tool)).toBe(true);
    expect(canOwnTool({ name: 'b-server', transport: 'stdio' }, tool)).toBe(false);
  });
});

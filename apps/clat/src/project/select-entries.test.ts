import { qualifyToolName } from '@clat/kernel';
import { describe, expect, it } from 'vitest';
import { canOwnTool, resourceToolReaches } from './select-entries.js';

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

describe('resourceToolReaches', () => {
  const docs = { name: 'docs', kind: 'mcp' };
  const other = { name: 'other', kind: 'mcp' };
  it('reaches the named server, or every server when none is named', () => {
    const named = resourceToolReaches('read_resource', { server: 'docs', uri: 'x://y' }, []);
    expect([named(docs), named(other)]).toEqual([true, false]);
    const pair = resourceToolReaches('list_resources', undefined, ['server=other']);
    expect([pair(docs), pair(other)]).toEqual([false, true]);
    const all = resourceToolReaches('list_resources', {}, []);
    expect([all(docs), all(other)]).toEqual([true, true]);
    expect(resourceToolReaches('read_file', {}, [])(docs)).toBe(false);
  });
});

import { describe, expect, it } from 'vitest';
import { claudeToolName, closestName, didYouMean, didYouMeanTool } from './did-you-mean.js';

describe('closestName', () => {
  const tools = [
    'mcp_notes_add_note',
    'mcp_notes_list_notes',
    'mcp_notes_delete_note',
    'read_file',
  ];

  it('finds a typo of a tool, a server, a command', () => {
    expect(closestName('mcp_notes_add_notes', tools)).toBe('mcp_notes_add_note');
    expect(closestName('mcp_notes_lsit_notes', tools)).toBe('mcp_notes_list_notes');
    expect(closestName('raed_file', tools)).toBe('read_file');
    expect(closestName('toosl', ['tools', 'call', 'mcp', 'plugin'])).toBe('tools');
    expect(closestName('Notes', ['notes', 'memory'])).toBe('notes');
    // A swap of two neighbours is one edit, also in a short name.
    expect(closestName('lsit', ['list', 'get', 'add'])).toBe('list');
    expect(closestName('ntoes', ['notes', 'memory'])).toBe('notes');
  });

  it('says nothing for another word, a tie, or the name itself', () => {
    expect(closestName('weather', tools)).toBeUndefined();
    // Two edits in four characters is another word.
    expect(closestName('nope', ['mode', 'query'])).toBeUndefined();
    expect(closestName('ab', ['ax', 'ay'])).toBeUndefined();
    expect(closestName('x', [])).toBeUndefined();
    expect(closestName('read_file', ['read_file'])).toBeUndefined();
  });

  it('words the hint for an error sentence', () => {
    expect(didYouMean('raed_file', tools)).toBe(' (did you mean "read_file"?)');
    expect(didYouMean('weather', tools)).toBe('');
  });
});

describe('didYouMeanTool', () => {
  const names = ['read_file', 'mcp_fs_read_text_file', 'mcp_fs_write_file', 'mcp_notes_add_note'];
  it("names CLAT's form of Claude Code's mcp__server__tool", () => {
    expect(didYouMeanTool('mcp__fs__read_text_file', names)).toBe(
      ' (did you mean "mcp_fs_read_text_file"? CLAT names a server\'s tools mcp_<server>_<tool>)',
    );
    expect(claudeToolName('mcp__my server__go')).toBe('mcp_my_server_go');
    expect(claudeToolName('mcp_fs_read')).toBeUndefined();
  });
  it('names the one server tool whose own name was typed, else the closest name', () => {
    expect(didYouMeanTool('add_note', names)).toBe(' (did you mean "mcp_notes_add_note"?)');
    expect(didYouMeanTool('mcp_fs_write_fil', names)).toBe(' (did you mean "mcp_fs_write_file"?)');
    expect(didYouMeanTool('zzz', names)).toBe('');
  });
});

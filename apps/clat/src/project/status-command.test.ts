import { describe, expect, it } from 'vitest';
import { mcpStatusCommand } from './status-command.js';

describe('mcpStatusCommand', () => {
  it('repeats the project flags of the run', () => {
    expect(mcpStatusCommand({})).toBe('clat mcp');
    expect(mcpStatusCommand({ trust: false })).toBe('clat mcp');
    expect(mcpStatusCommand({ trust: true })).toBe('clat mcp --trust');
    expect(mcpStatusCommand({ project: '../app', trust: true })).toBe('clat mcp -C ../app --trust');
  });

  it('quotes a directory the shell would split or expand', () => {
    expect(mcpStatusCommand({ project: "my app's dir" })).toBe(`clat mcp -C 'my app'\\''s dir'`);
    expect(mcpStatusCommand({ project: '$HOME/x' })).toBe(`clat mcp -C '$HOME/x'`);
  });
});

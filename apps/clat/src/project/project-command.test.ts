import { describe, expect, it } from 'vitest';
import { mcpStatusCommand, projectCommand } from './project-command.js';

describe('projectCommand', () => {
  it('repeats the project flags of the run', () => {
    expect(mcpStatusCommand({})).toBe('clat mcp');
    expect(mcpStatusCommand({ trust: false })).toBe('clat mcp');
    expect(mcpStatusCommand({ trust: true })).toBe('clat mcp --trust');
    expect(projectCommand(['tools'], { project: '../app', trust: true })).toBe(
      'clat tools -C ../app --trust',
    );
  });

  it('quotes words and a directory the shell would split or expand', () => {
    expect(mcpStatusCommand({ project: "my app's dir" })).toBe(`clat mcp -C 'my app'\\''s dir'`);
    expect(mcpStatusCommand({ project: '$HOME/x' })).toBe(`clat mcp -C '$HOME/x'`);
    expect(projectCommand(['prompts', 'my server'], {})).toBe(`clat prompts 'my server'`);
  });
});

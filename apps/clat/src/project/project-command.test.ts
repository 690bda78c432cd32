import { describe, expect, it } from 'vitest';
import { loginCommand } from './login-command.js';
import { mcpStatusCommand, operandCommand, projectCommand } from './project-command.js';

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

describe('operandCommand', () => {
  it('puts an operand that would read as an option after "--"', () => {
    expect(operandCommand(['mcp', 'enable'], 'docs')).toBe('clat mcp enable docs');
    expect(operandCommand(['mcp', 'enable'], '-x')).toBe('clat mcp enable -- -x');
    expect(operandCommand(['mcp', 'login'], '--trust', { trust: true })).toBe(
      'clat mcp login --trust -- --trust',
    );
  });
});

describe('loginCommand', () => {
  it('names the server as one shell word, with the run project flags', () => {
    expect(loginCommand('remote')).toBe('clat mcp login remote');
    expect(loginCommand('my docs', { project: '/p q', trust: true })).toBe(
      `clat mcp login 'my docs' -C '/p q' --trust`,
    );
    // Double quotes (the old form) let a shell expand `$` and backquotes in a name.
    expect(loginCommand('a$HOME`id`')).toBe("clat mcp login 'a$HOME`id`'");
  });
});

import { describe, expect, it } from 'vitest';
import { argumentsNamePaths } from './path-arguments.js';

describe('argumentsNamePaths', () => {
  it.each([
    [['-y', '@modelcontextprotocol/server-filesystem', '/home/me/notes']],
    [['server.js', '.']],
    [['--root=../data']],
    [['~/projects']],
    [['C:\\Users\\me']],
  ])('%j names a path', (args) => {
    expect(argumentsNamePaths(args)).toBe(true);
  });

  it.each([
    [undefined],
    [[]],
    [['/opt/server-everything/dist/index.js', 'stdio']],
    [['-y', '@modelcontextprotocol/server-memory']],
    [['--port', '3001', 'https://example.com/mcp']],
    [['--flag', '~tilde-word']],
  ])('%j names none', (args) => {
    expect(argumentsNamePaths(args)).toBe(false);
  });
});

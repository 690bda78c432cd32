import { describe, expect, it } from 'vitest';
import { type CompletionSources, completeSessionLine } from './session-completer.js';

function sources(prompts: string[] = ['/mcp__docs__review', '/mcp__docs__summary']) {
  let listed = 0;
  const value: CompletionSources = {
    commands: ['/call', '/exit', '/help', '/login', '/mcp', '/mode', '/tools'],
    promptCommands: async () => {
      listed++;
      return prompts;
    },
    tools: () => ['read_file', 'mcp_docs_search', 'mcp_docs_fetch'],
    servers: () => ['docs', 'memory'],
    modes: ['read-only', 'project-write', 'full-access'],
  };
  return { value, listed: () => listed };
}

describe('completeSessionLine', () => {
  it("completes the session's commands and the prompts' slash commands", async () => {
    const { value, listed } = sources();
    expect(await completeSessionLine('/he', value)).toEqual([['/help'], '/he']);
    expect(await completeSessionLine('/m', value)).toEqual([
      ['/mcp', '/mode', '/mcp__docs__review', '/mcp__docs__summary'],
      '/m',
    ]);
    expect(await completeSessionLine('/mcp__docs__r', value)).toEqual([
      ['/mcp__docs__review'],
      '/mcp__docs__r',
    ]);
    // Prompts are listed only for a command that may be one.
    const before = listed();
    await completeSessionLine('/ca', value);
    expect(listed()).toBe(before);
  });

  it('completes the tool, server or mode a command takes, and nothing after it', async () => {
    const { value } = sources();
    expect(await completeSessionLine('/call mcp_docs_', value)).toEqual([
      ['mcp_docs_fetch', 'mcp_docs_search'],
      'mcp_docs_',
    ]);
    expect(await completeSessionLine('/tools d', value)).toEqual([['docs'], 'd']);
    expect(await completeSessionLine('/login me', value)).toEqual([['memory'], 'me']);
    expect(await completeSessionLine('/mode pro', value)).toEqual([['project-write'], 'pro']);
    expect((await completeSessionLine('/call read_file pa', value))[0]).toEqual([]);
    expect((await completeSessionLine('summarise /tmp', value))[0]).toEqual([]);
  });
});

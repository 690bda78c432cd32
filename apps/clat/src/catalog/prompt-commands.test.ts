import { describe, expect, it } from 'vitest';
import { findMentions, mentionName } from './mentions.js';
import { buildPromptCommands, promptCommandName } from './prompt-commands.js';

const prompt = (name: string) => ({ name, arguments: [] });

describe('prompt slash commands', () => {
  it('normalises the server name as tool names do and keeps command-safe prompt names', () => {
    expect(promptCommandName('my server', 'args-prompt')).toEqual({
      command: 'mcp__my_server__args-prompt',
    });
    expect(promptCommandName('ü', 'x')).toEqual({
      reason: 'server name "ü" has no ASCII letters or digits',
    });
    for (const odd of ['two words', 'a/b', '-lead', 'é', 'x\u001b[2J', '']) {
      expect(promptCommandName('s', odd)).toHaveProperty('reason');
    }
    expect(promptCommandName('s', 'p'.repeat(80))).toEqual({
      reason: 'the command would be 88 characters, over 64',
    });
  });

  it('lets the first of two equal commands win and reports the rest and failed listings', () => {
    const table = buildPromptCommands([
      { server: 'a b', prompts: [prompt('go'), prompt('bad name')] },
      { server: 'a_b', prompts: [prompt('go'), prompt('stay')] },
      { server: 'down', error: 'connection lost' },
    ]);
    expect(table.commands.map((c) => `${c.server}:${c.command}`)).toEqual([
      'a b:mcp__a_b__go',
      'a_b:mcp__a_b__stay',
    ]);
    expect(table.skipped.map((s) => `${s.server}:${s.prompt}`)).toEqual(['a b:bad name', 'a_b:go']);
    expect(table.skipped[1]?.reason).toBe(
      '/mcp__a_b__go is already the command of prompt "go" of server "a b"',
    );
    expect(table.failed).toEqual([{ server: 'down', error: 'connection lost' }]);
  });
});

describe('findMentions', () => {
  it('finds @server:uri words of configured servers only, longest name first, each once', () => {
    const line =
      'see @docs:file:///a.md and @docs-v2:mem://x, mail me@docs:x or @other:y @docs:file:///a.md @docs:';
    expect(findMentions(line, ['docs', 'docs-v2'])).toEqual([
      { server: 'docs', uri: 'file:///a.md', text: '@docs:file:///a.md' },
      { server: 'docs-v2', uri: 'mem://x', text: '@docs-v2:mem://x' },
    ]);
    expect(findMentions('no mentions here', ['docs'])).toEqual([]);
  });

  it('matches a server whose name holds a space by its name as tool names carry it', () => {
    expect(mentionName('team docs')).toBe('team_docs');
    expect(mentionName('docs-v2')).toBe('docs-v2');
    expect(findMentions('read @team_docs:mem://a please', ['team docs', 'team'])).toEqual([
      { server: 'team docs', uri: 'mem://a', text: '@team_docs:mem://a' },
    ]);
  });
});

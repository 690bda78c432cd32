import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { shellWord } from './shell-word.js';

describe('shellWord', () => {
  it('leaves plain words bare', () => {
    for (const word of ['.', 'docs', './x.clatpkg', 'a/b', '@z_ai/mcp-server', 'k=v', '/tmp/p-1'])
      expect(shellWord(word)).toBe(word);
  });

  it('quotes what a shell would split, expand or glob', () => {
    expect(shellWord('my dir')).toBe("'my dir'");
    expect(shellWord('a$b')).toBe("'a$b'");
    expect(shellWord('')).toBe("''");
    expect(shellWord("it's")).toBe("'it'\\''s'");
  });

  it('reads back as the same single word in a real POSIX shell', () => {
    const words = ['a$HOME`id`"x"', "it's", 'two  spaces', 'star*?[a]', 'back\\slash', '!bang', ''];
    const script = `for w in ${words.map(shellWord).join(' ')}; do printf '%s\\0' "$w"; done`;
    const out = execFileSync('sh', ['-c', script], { encoding: 'utf8' });
    expect(out.split('\0').slice(0, -1)).toEqual(words);
  });
});

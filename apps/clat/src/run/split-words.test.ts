import { describe, expect, it } from 'vitest';
import { splitWords } from './split-words.js';

describe('splitWords', () => {
  it('splits on whitespace and groups quotes, also inside a word', () => {
    expect(splitWords('  text="hello world"  limit=5 ')).toEqual(['text=hello world', 'limit=5']);
    expect(splitWords(`tags='["a", "b"]' empty="" x`)).toEqual(['tags=["a", "b"]', 'empty=', 'x']);
    expect(splitWords('say=it\\ works q="a \\"b\\" c"')).toEqual(['say=it works', 'q=a "b" c']);
    expect(splitWords("path='C:\\dir'")).toEqual(['path=C:\\dir']);
    expect(splitWords('')).toEqual([]);
  });

  it('expands nothing', () => {
    expect(splitWords('home=$HOME glob=* pipe=a|b')).toEqual(['home=$HOME', 'glob=*', 'pipe=a|b']);
  });

  it('names an unclosed quote', () => {
    expect(splitWords('text="open')).toEqual({ unclosed: '"' });
    expect(splitWords("text='open")).toEqual({ unclosed: "'" });
  });
});

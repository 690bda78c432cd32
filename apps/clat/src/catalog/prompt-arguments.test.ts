import type { CatalogPrompt } from '@clat/kernel';
import { describe, expect, it } from 'vitest';
import { bindPromptArguments, splitWords } from './prompt-arguments.js';

const weather: CatalogPrompt = {
  name: 'weather',
  arguments: [
    { name: 'city', required: true },
    { name: 'state', required: false },
  ],
};

describe('splitWords', () => {
  it('splits on whitespace and keeps quoted groups, inside words too', () => {
    expect(splitWords(`  Paris  state="Île de France" 'a "b"' x\\ y `)).toEqual([
      'Paris',
      'state=Île de France',
      'a "b"',
      'x y',
    ]);
    expect(splitWords('say "a \\"quoted\\" word"')).toEqual(['say', 'a "quoted" word']);
    expect(splitWords('empty "" value')).toEqual(['empty', '', 'value']);
    expect(splitWords('')).toEqual([]);
  });

  it('refuses an unterminated quote, naming the line', () => {
    expect(() => splitWords('city="Paris')).toThrow('unterminated " quote in "city=\\"Paris"');
  });
});

describe('bindPromptArguments', () => {
  it('binds key=value to declared names and fills the rest in declared order', () => {
    expect(bindPromptArguments(weather, ['state=TX', 'Austin'])).toEqual({
      city: 'Austin',
      state: 'TX',
    });
    expect(bindPromptArguments(weather, ['Paris'])).toEqual({ city: 'Paris' });
    // A value with "=" is given named; a word that is not a name before "=" stays a value.
    expect(bindPromptArguments(weather, ['city=a=b'])).toEqual({ city: 'a=b' });
    expect(bindPromptArguments(weather, ['1+1=2'])).toEqual({ city: '1+1=2' });
    // A mistyped name is refused, not bound to the next argument.
    expect(() => bindPromptArguments(weather, ['cty=Paris'])).toThrow(
      'prompt "weather" has no argument "cty" (its arguments: city, state); a value with "=" is given named: city=cty=Paris',
    );
  });

  it('names what is wrong: a missing required argument, one too many, a repeat', () => {
    expect(() => bindPromptArguments(weather, ['state=TX'])).toThrow(
      'prompt "weather" needs argument "city"; give city=<value>, or values in the order city state',
    );
    expect(() => bindPromptArguments(weather, ['a', 'b', 'c'])).toThrow(
      'prompt "weather" takes 2 arguments (city, state); "c" is one too many',
    );
    expect(() => bindPromptArguments(weather, ['city=a', 'city=b'])).toThrow(
      'argument "city" of prompt "weather" is given twice',
    );
    expect(() => bindPromptArguments({ name: 'plain', arguments: [] }, ['x'])).toThrow(
      'prompt "plain" takes no arguments; got "x"',
    );
  });
});

describe('bindPromptArguments with an argument named __proto__', () => {
  it('binds it, named or by position, as any other argument', () => {
    const odd: CatalogPrompt = { name: 'q', arguments: [{ name: '__proto__', required: true }] };
    for (const words of [['__proto__=hello'], ['hello']]) {
      const args = bindPromptArguments(odd, words);
      expect(Object.keys(args)).toEqual(['__proto__']);
      expect(JSON.stringify(args)).toBe('{"__proto__":"hello"}');
    }
  });
});

import { describe, expect, it } from 'vitest';
import { absolutePathWords, splitServerWords, withServerWordsMoved } from './server-args.js';

describe('splitServerWords', () => {
  it('gives the words after the first -- to the server, [] for a bare --', () => {
    expect(splitServerWords(['npm:x', '--yes'])).toEqual({
      own: ['npm:x', '--yes'],
      server: undefined,
    });
    expect(splitServerWords(['npm:x', '--', '--headless', '--', 'a'])).toEqual({
      own: ['npm:x'],
      server: ['--headless', '--', 'a'],
    });
    expect(splitServerWords(['x', '--'])).toEqual({ own: ['x'], server: [] });
  });
});

describe('absolutePathWords', () => {
  it('makes ., ./ and ../ words and option values absolute and lists each change', () => {
    expect(
      absolutePathWords(
        ['.', './db', '../up', '.hidden', '--dir=./x', '-d=..', 'a=./b', '--x=.env', 'plain'],
        '/w/p',
      ),
    ).toEqual({
      words: [
        '/w/p',
        '/w/p/db',
        '/w/up',
        '.hidden',
        '--dir=/w/p/x',
        '-d=/w',
        'a=./b',
        '--x=.env',
        'plain',
      ],
      resolved: [
        '. → /w/p',
        './db → /w/p/db',
        '../up → /w/up',
        '--dir=./x → --dir=/w/p/x',
        '-d=.. → -d=/w',
      ],
    });
  });
});

describe('withServerWordsMoved', () => {
  it('moves the unknown option and its values after --, keeping CLAT options and the source', () => {
    expect(
      withServerWordsMoved(
        'clat plugin install',
        ['npm:@playwright/mcp', '--headless', '--yes'],
        '--headless',
      ),
    ).toBe('clat plugin install npm:@playwright/mcp --yes -- --headless');
    expect(
      withServerWordsMoved('clat plugin install', ['--port', '8080', 'npm:x', '-y'], '--port'),
    ).toBe('clat plugin install npm:x -y -- --port 8080');
    expect(withServerWordsMoved('clat plugin install', ['npm:x', '--api-key=k'], '--api-key')).toBe(
      'clat plugin install npm:x -- --api-key=k',
    );
  });

  it('is undefined when the option is not among the words', () => {
    expect(withServerWordsMoved('clat plugin install', ['npm:x'], '--nope')).toBeUndefined();
  });
});

import { literalReferences } from '@clat/adapter-mcp';
import { describe, expect, it } from 'vitest';
import {
  absolutePathWords,
  exposedArgumentNotes,
  splitServerWords,
  withServerWordsMoved,
} from './server-args.js';

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
  it('makes a bare file name absolute only when it exists (node server.js), never a package or a URL', () => {
    const here = new Set(['/w/p/server.js', '/w/p/src/main.py', '/w/p/data', '/w/p/@scope/pkg']);
    const exists = (path: string) => here.has(path);
    // Not paths here: missing, a package, a URL, a bare name, a reference, an option, no extension.
    const kept = [
      'missing.js',
      '@scope/pkg',
      'https://x/y.js',
      'pkg-name',
      '${HOME}/a.js',
      '-c',
      'data',
    ];
    expect(absolutePathWords(['server.js', 'src/main.py', ...kept], '/w/p', { exists })).toEqual({
      words: ['/w/p/server.js', '/w/p/src/main.py', ...kept],
      resolved: ['server.js → /w/p/server.js', 'src/main.py → /w/p/src/main.py'],
      literal: [],
    });
  });

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
      literal: [],
    });
  });
});

describe('absolutePathWords with a literal form of paths', () => {
  const literal = literalReferences;
  const here = new Set(['/d${X}/s.mjs', '/d${X}/data', '/d${X}/up']);
  const exists = (path: string) => here.has(path);

  it('writes the directory made absolute, and an existing path typed, in it; never a reference', () => {
    const words = ['s.mjs', './data', '../up', '--db=./data', '/d${X}/s.mjs', '--f=/d${X}/up'];
    const references = ['${projectRoot}/s.mjs', '${MY_TOKEN}', '/missing/${HOME}', './${SUB}'];
    expect(absolutePathWords([...words, ...references], '/d${X}', { exists, literal })).toEqual({
      words: [
        '/d$${X}/s.mjs',
        '/d$${X}/data',
        '/up',
        '--db=/d$${X}/data',
        '/d$${X}/s.mjs',
        '--f=/d$${X}/up',
        '${projectRoot}/s.mjs',
        '${MY_TOKEN}',
        '/missing/${HOME}',
        '/d$${X}/${SUB}',
      ],
      resolved: [
        's.mjs → /d$${X}/s.mjs',
        './data → /d$${X}/data',
        '../up → /up',
        '--db=./data → --db=/d$${X}/data',
        './${SUB} → /d$${X}/${SUB}',
      ],
      literal: [
        '/d${X}/s.mjs',
        '/d${X}/data',
        '/d${X}/data',
        '/d${X}/s.mjs',
        '/d${X}/up',
        '/d${X}/${SUB}',
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

describe('exposedArgumentNotes', () => {
  // What the word reads: the `${NAME}`s in it, as a test double of packaging's parser.
  const reads = (word: string) =>
    [...word.matchAll(/\$\{(\w+)/g)].map((match) => match[1] as string);

  it('says nothing of arguments that expose no key', () => {
    expect(exposedArgumentNotes(['--db', '${HOME}/db', '--region=${REGION}'], reads)).toEqual([]);
  });

  it('names each secret-named variable once, with --env for the first, never a value', () => {
    const notes = exposedArgumentNotes(
      ['--token', '${GITHUB_TOKEN}', '--key=${ACME_API_KEY}', '${GITHUB_TOKEN}', '${HOME}'],
      reads,
    );
    expect(notes).toEqual([
      "Note: the server's arguments read GITHUB_TOKEN, ACME_API_KEY from the environment CLAT starts in, so each start puts their values on the server's command line, where other users of this machine can read them (ps); if the server reads them from its environment, pass each with --env 'GITHUB_TOKEN=${GITHUB_TOKEN}' instead",
    ]);
  });

  it('notes a key typed as an argument without showing it', () => {
    const notes = exposedArgumentNotes(['--api-key', 'sk-live-0123456789abcdef'], reads);
    expect(notes).toHaveLength(1);
    expect(notes[0]).toContain('a server argument looks like a key');
    expect(notes.join('')).not.toContain('sk-live');
  });
});

import type { ConfigIssue } from '@clat/kernel';
import { describe, expect, it } from 'vitest';
import { fieldHints } from './field-hints.js';

const KNOWN = ['type', 'command', 'args', 'env', 'cwd', 'url', 'headers', 'oauth', 'disabled'];

function issue(
  unknownKeys: string[],
  knownKeys: string[] | null = KNOWN,
  message = `unknown field(s) ${unknownKeys.map((key) => JSON.stringify(key)).join(', ')}`,
): ConfigIssue {
  return {
    file: 'mcp.json',
    path: 'docs',
    message,
    unknownKeys,
    ...(knownKeys === null ? {} : { knownKeys }),
  };
}

describe('fieldHints', () => {
  it('names the field a typo was meant to be, and only a close one', () => {
    expect(fieldHints(issue(['comand']))).toBe(' (did you mean "command"?)');
    expect(fieldHints(issue(['header']))).toBe(' (did you mean "headers"?)');
    expect(fieldHints(issue(['timeout']))).toBe('');
    // A message that does not name the field itself: the hint does.
    const needs = 'entry needs either "command" (stdio) or "url" (Streamable HTTP)';
    expect(fieldHints(issue(['comand'], KNOWN, needs))).toBe(
      ' ("comand": did you mean "command"?)',
    );
    expect(fieldHints(issue(['arg', 'enviroment', 'header']))).toBe(
      ' ("arg": did you mean "args"?; "header": did you mean "headers"?)',
    );
  });

  it("names another client's field by whose name it is", () => {
    expect(fieldHints(issue(['httpUrl']))).toBe(
      ` ("httpUrl" is Gemini CLI's name for "url" in CLAT)`,
    );
    expect(fieldHints(issue(['environment', 'comand']))).toBe(
      ' ("environment" is a longer name for "env" in CLAT; "comand": did you mean "command"?)',
    );
  });

  it('says nothing when the reader did not say which fields it knows', () => {
    expect(fieldHints(issue(['comand'], null))).toBe('');
    expect(fieldHints({ file: 'f', path: 'p', message: 'm' })).toBe('');
  });
});

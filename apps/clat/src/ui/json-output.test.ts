import { describe, expect, it } from 'vitest';
import { CliErrorCode, isCliError } from '../errors.js';
import { jsonOutput } from './json-output.js';

describe('jsonOutput', () => {
  it('prints indented JSON with a newline', () => {
    expect(jsonOutput({ a: [1] }, 'clat tools')).toBe('{\n  "a": [\n    1\n  ]\n}\n');
  });

  it('escapes DEL, C1, bidi controls and line separators, and parses back to the same value', () => {
    const hostile = `a\u007f\u0080\u009b2J\u061c\u200e\u200f\u2028\u2029\u202a\u202e\u2066\u2069z`;
    const value = { [`key${hostile}`]: [hostile, { nested: hostile }] };
    const text = jsonOutput(value, 'clat tools');
    expect(text).not.toMatch(/[\u007f-\u009f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]/);
    expect(text).toContain(
      String.raw`a\u007f\u0080\u009b2J\u061c\u200e\u200f\u2028\u2029\u202a\u202e\u2066\u2069z`,
    );
    expect(JSON.parse(text)).toEqual(value);
  });

  it('keeps other text as JSON.stringify prints it', () => {
    const value = { text: 'é ü 中文 😀 \u200d \u00a0 tab\t' };
    expect(jsonOutput(value, 'clat tools')).toBe(`${JSON.stringify(value, null, 2)}\n`);
  });

  it('turns a value too deep for JSON.stringify into a CliError naming the command', () => {
    let deep: Record<string, unknown> = {};
    for (let level = 0; level < 100_000; level++) deep = { a: deep };
    let thrown: unknown;
    try {
      jsonOutput({ servers: [deep] }, 'clat prompts get');
    } catch (error) {
      thrown = error;
    }
    expect(isCliError(thrown) && thrown.code).toBe(CliErrorCode.CLI_JSON_OUTPUT);
    expect((thrown as Error).message).toMatch(
      /^clat prompts get --json: the output is nested too deep or too large to print as JSON \(Maximum call stack size exceeded\); rerun without --json$/,
    );
  });
});

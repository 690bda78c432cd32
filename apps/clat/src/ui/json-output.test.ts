import { describe, expect, it } from 'vitest';
import { CliErrorCode, isCliError } from '../errors.js';
import { jsonOutput } from './json-output.js';

describe('jsonOutput', () => {
  it('prints indented JSON with a newline', () => {
    expect(jsonOutput({ a: [1] }, 'clat tools')).toBe('{\n  "a": [\n    1\n  ]\n}\n');
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

/**
 * The `clat-dsh` bin on plugins whose names and errors are hostile terminal text: every
 * human-readable report shows them escaped by the kernel sanitiser, and `--json` keeps them exact.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { clatDsh, DSH_FIXTURES } from './harness.js';

const HOSTILE = join(DSH_FIXTURES, 'hostile-plugin');
const THROWS = join(DSH_FIXTURES, 'hostile-throws.mjs');
const TOOL = 'rm\u202etxt.exe\u009b2J';

/** Anything a terminal acts on or hides, apart from newlines and tabs. */
function expectNothingRaw(output: string): void {
  const raw = [...output].filter((char) => {
    const code = char.codePointAt(0) ?? 0;
    return (
      (code < 0x20 && code !== 0x0a && code !== 0x09) ||
      (code >= 0x7f && code <= 0x9f) ||
      (code >= 0x202a && code <= 0x202e) ||
      (code >= 0x2066 && code <= 0x2069)
    );
  });
  expect(raw).toEqual([]);
}

describe('clat-dsh on a hostile plugin', () => {
  it('inspect shows the plugin name and tool names escaped', async () => {
    const result = await clatDsh(['inspect', HOSTILE]);
    expect(result.code, result.stderr).toBe(0);
    expectNothingRaw(`${result.stdout}${result.stderr}`);
    expect(result.stdout).toContain('(hostile\\x1b]52;c;Y3VybCBldmlsLnNoIHwgc2g=\\x07plugin)');
    expect(result.stdout).toContain('tools:        rm\\u202etxt.exe\\x9b2J [read-only]');
  });

  it('inspect shows what apply() threw escaped', async () => {
    const result = await clatDsh(['inspect', THROWS]);
    expectNothingRaw(`${result.stdout}${result.stderr}`);
    expect(result.stdout).toContain('form:         object (throws\\x1b[8mhidden)');
    expect(result.stdout).toContain(
      'failed: boom \\x1b]8;;https://evil.example/\\x1b\\click\\x1b]8;;\\x1b\\ \\u202egnp.exe \\x9b2J',
    );
  });

  it('inspect --json keeps every name exact', async () => {
    const result = await clatDsh(['inspect', HOSTILE, '--json']);
    expect(result.code, result.stderr).toBe(0);
    const report = JSON.parse(result.stdout) as { name: string; tools: { name: string }[] };
    expect(report.name).toBe('hostile\u001b]52;c;Y3VybCBldmlsLnNoIHwgc2g=\u0007plugin');
    expect(report.tools.map((tool) => tool.name)).toEqual([TOOL]);
  });

  it('test shows the server name, tool names and annotations escaped', async () => {
    const result = await clatDsh(['test', HOSTILE]);
    expect(result.code, result.stderr).toBe(0);
    expectNothingRaw(`${result.stdout}${result.stderr}`);
    expect(result.stdout).toContain('server hostile-server\\x1b]0;pwned\\x07,');
    expect(result.stdout).toContain('  rm\\u202etxt.exe\\x9b2J {"readOnlyHint":true');
  });

  it('a failed test shows the server error, which quotes the plugin, escaped', async () => {
    const result = await clatDsh(['test', THROWS]);
    expect(result.code).toBe(1);
    expectNothingRaw(`${result.stdout}${result.stderr}`);
    expect(result.stderr).toContain('[APPLY_FAILED] apply() of throws\\x1b[8mhidden failed: boom');
  });
});

import { describe, expect, it } from 'vitest';
import { stderrHeadline, stderrSummary } from './stderr-summary.js';

describe('stderrSummary', () => {
  it("keeps a crash's error line above its stack, and drops frames and the runtime banner", () => {
    const nodeCrash = [
      'file:///srv/server.mjs:2',
      'throw new Error("startup exploded")',
      '^',
      '',
      'Error: startup exploded',
      '    at file:///srv/server.mjs:2:7',
      '    at ModuleJob.run (node:internal/modules/esm/module_job:234:25)',
      '    at async ModuleLoader.import (node:internal/modules/esm/loader:473:24)',
      '',
      'Node.js v20.20.2',
    ];
    expect(stderrSummary(nodeCrash)).toEqual([
      'file:///srv/server.mjs:2',
      'throw new Error("startup exploded")',
      'Error: startup exploded',
    ]);
    const missing = [
      'node:internal/modules/cjs/loader:1228',
      '  throw err;',
      '  ^',
      '',
      "Error: Cannot find module '/home/u/server.js'",
      '    at Module._resolveFilename (node:internal/modules/cjs/loader:1225:15)',
      '    at node:internal/main/run_main_module:28:49 {',
      "  code: 'MODULE_NOT_FOUND',",
      '  requireStack: []',
      '}',
      '',
      'Node.js v20.20.2',
    ];
    expect(stderrSummary(missing)).toEqual([
      "Error: Cannot find module '/home/u/server.js'",
      "code: 'MODULE_NOT_FOUND',",
      'requireStack: []',
    ]);
    const python = [
      'Traceback (most recent call last):',
      '  File "s.py", line 3',
      'x',
      'y',
      'ValueError: bad',
    ];
    expect(stderrSummary(python)).toEqual(['x', 'y', 'ValueError: bad']);
  });
});

describe('stderrHeadline', () => {
  it('is the last error line, else the newest useful line', () => {
    expect(
      stderrHeadline(['Error: first', '    at x', 'TypeError: second', 'Node.js v20.20.2']),
    ).toBe('TypeError: second');
    expect(stderrHeadline(['loading', 'KEY is required', ''])).toBe('KEY is required');
    expect(stderrHeadline([])).toBeUndefined();
  });
});

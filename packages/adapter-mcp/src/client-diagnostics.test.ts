import { describe, expect, it } from 'vitest';
import { decorate, stderrSuffix, stderrSummary } from './client-diagnostics.js';
import { McpError, McpErrorCode } from './errors.js';
import type { Transport, TransportKind } from './transport.js';

function transportWith(kind: TransportKind, tail: string[]): Transport {
  return {
    kind,
    start: async () => {},
    send: async () => {},
    close: async () => {},
    diagnostics: () => ({ tail, detail: {} }),
  };
}

describe('stderrSuffix and decorate', () => {
  it('names a stdio tail as the server stderr, in the order it was written', () => {
    expect(stderrSuffix(transportWith('stdio', ['one', 'two']))).toBe('; server stderr: one | two');
  });

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
    expect(stderrSuffix(transportWith('stdio', ['   at x', 'Node.js v20.1.0']))).toBe('');
  });

  it('calls an HTTP tail what it is and leaves out the lines the error says already', () => {
    const failure =
      'connection to MCP server at http://127.0.0.1:9 failed during tools/list: ECONNRESET';
    const http = transportWith('http', ['an older failure', failure]);
    expect(stderrSuffix(http, `could not list: ${failure}`)).toBe(
      '; recent HTTP failures: an older failure',
    );
    const error = new McpError(McpErrorCode.MCP_SEND_FAILED, failure, { server: 's' });
    expect((decorate(error, transportWith('http', [failure])) as Error).message).toBe(failure);
  });
});

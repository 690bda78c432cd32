import { describe, expect, it } from 'vitest';
import { decorate, stderrSuffix } from './client-diagnostics.js';
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

  it('adds nothing when the tail holds only stack frames and the runtime banner', () => {
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

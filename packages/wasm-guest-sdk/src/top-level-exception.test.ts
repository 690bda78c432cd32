import { describe, expect, it } from 'vitest';
import { topLevelException } from './top-level-exception.js';

// Reports componentize-js 0.23 gave for guests whose top level threw (the wizer path shortened).
const WIZER = 'Failed to initialize component (wizer (/n/wizer-linux-x64/wizer)):\n';
const reports = {
  error: `${WIZER}Exception while evaluating top-level script\nguest.js:59:7 Error: tool "save": effect "writes" is not one of pure, read\nAdditionally, some promises were rejected, but the rejection never handled:\nPromise rejected but never handled: tool "save": effect "writes" is not one of pure, read\nStack:\n  @guest.js:59:7`,
  string: `${WIZER}Exception while evaluating top-level script\nuncaught exception: plain string thrown\nAdditionally, some promises were rejected, but the rejection never handled:\nPromise rejected but never handled: "plain string thrown"\nStack:`,
  multiLine: `${WIZER}Exception while evaluating top-level script\nguest.js:2:7 TypeError: line one\nguest.js:2:7 line two\nAdditionally, some promises were rejected, but the rejection never handled:\nPromise rejected but never handled: line one\nline two\nStack:\n  @guest.js:2:7`,
};

describe('topLevelException', () => {
  it('keeps only the message a top-level Error carried', () => {
    expect(topLevelException(reports.error)).toBe(
      'tool "save": effect "writes" is not one of pure, read',
    );
  });

  it('keeps a thrown string, and a named error with every line of its message', () => {
    expect(topLevelException(reports.string)).toBe('plain string thrown');
    expect(topLevelException(reports.multiLine)).toBe('TypeError: line one\nline two');
  });

  it('finds nothing in a report of another failure', () => {
    expect(topLevelException(`${WIZER}wizer exited with signal 9`)).toBeUndefined();
  });
});

import { describe, expect, it } from 'vitest';
import { lastWords } from './stderr-tail.js';

describe('lastWords', () => {
  it('quotes the newest line', () => {
    expect(lastWords(['loading config', 'Z_AI_API_KEY is required'])).toBe(
      'Z_AI_API_KEY is required',
    );
  });

  it("passes over npm's closing pointer to its log, and blank lines, to the error before them", () => {
    const npx = [
      'npm error code ETARGET',
      'npm error notarget No matching version found for @playwright/mcp@0.0.84.',
      'npm error A complete log of this run can be found in: /root/.npm/_logs/2026-12-05-debug-0.log',
      '',
    ];
    expect(lastWords(npx)).toBe(
      'npm error notarget No matching version found for @playwright/mcp@0.0.84.',
    );
  });

  it('falls back to the newest line when nothing else is there, and to nothing for no lines', () => {
    expect(lastWords(['npm error A complete log of this run can be found in: /x.log'])).toBe(
      'npm error A complete log of this run can be found in: /x.log',
    );
    expect(lastWords([])).toBeUndefined();
  });

  it("quotes a crash's error line, not the runtime banner under its stack", () => {
    const crash = [
      "throw new Error('no DATABASE_URL');",
      '^',
      '',
      'Error: no DATABASE_URL',
      '    at file:///srv/server.mjs:2:7',
      '',
      'Node.js v20.20.2',
    ];
    expect(lastWords(crash)).toBe('Error: no DATABASE_URL');
  });
});

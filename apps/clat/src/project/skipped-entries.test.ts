import { describe, expect, it } from 'vitest';
import { skippedEntries } from './skipped-entries.js';

describe('skippedEntries', () => {
  it('is undefined without issues', () => {
    expect(skippedEntries([])).toBeUndefined();
  });

  it('counts entries, not issues, and names each file once', () => {
    expect(
      skippedEntries([
        { file: '/h/mcp.json', path: 'docs.url', message: 'must be an absolute URL' },
        { file: '/h/mcp.json', path: 'docs.headers', message: 'bad' },
        { file: '/h/mcp.json', path: 'fs.args[0]', message: 'bad' },
      ]),
    ).toBe('2 entries skipped; fix /h/mcp.json');
  });

  it('says a file could not be read when the issue concerns the whole file', () => {
    expect(
      skippedEntries([
        { file: '/h/mcp.json', path: '(root)', message: 'not valid JSON' },
        { file: '/p/.clat/mcp.json', path: 'x', message: 'bad' },
      ]),
    ).toBe('/h/mcp.json could not be read, 1 entry skipped; fix /h/mcp.json and /p/.clat/mcp.json');
  });
});

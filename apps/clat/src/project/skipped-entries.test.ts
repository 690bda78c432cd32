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

  it('names no file to fix for an issue that says what to run', () => {
    const damaged = {
      file: '/h/plugin-store/registry.json',
      path: 'notes',
      message: 'server.mjs of installed package notes was changed; run "clat plugin repair notes"',
    };
    expect(skippedEntries([damaged])).toBe('1 entry skipped; each says what to do');
    expect(skippedEntries([damaged, { file: '/h/mcp.json', path: 'x.url', message: 'bad' }])).toBe(
      '2 entries skipped; fix /h/mcp.json',
    );
  });

  it('names no file to fix for an installed server whose environment variable is unset', () => {
    const unset = {
      file: '/h/plugin-store/registry.json',
      path: 'notion',
      message:
        'its env NOTION_TOKEN: the environment variable NOTION_TOKEN is not set and has no default; set it where CLAT starts',
    };
    expect(skippedEntries([unset])).toBe('1 entry skipped; each says what to do');
  });
});

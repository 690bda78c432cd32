import { describe, expect, it } from 'vitest';
import { parseServerEntry, StdioServerConfigSchema } from './config.js';
import { plainStdioEntry } from './plain-stdio-entry.js';

/** Entries the fast path must answer exactly as the schema does. */
const PLAIN: unknown[] = [
  { command: 'node' },
  { command: '/usr/bin/node', args: ['server.mjs', '--flag', ''] },
  { args: ['a'], command: 'npx', env: { B: '2', A: '1' }, cwd: 'servers/x' },
  { type: 'stdio', command: 'uvx', roots: false, disabled: true },
  { command: 'x', includeTools: ['read_*', 'list'], excludeTools: ['write'], disabled: false },
  { command: 'x', args: [], env: {}, includeTools: [] },
];

/** Entries it may refuse (the schema then decides): each either refused or answered exactly. */
const TRICKY: unknown[] = [
  ...PLAIN,
  { command: ' node' },
  { command: 'node ' },
  { command: '' },
  { command: 3 },
  { command: 'x', url: 'http://h' },
  { command: 'x', headers: {} },
  { command: 'x', typo: true },
  { command: 'x', type: 'http' },
  { command: 'x', args: 'a b' },
  { command: 'x', args: ['a', 1] },
  { command: 'x', env: { A: 1 } },
  { command: 'x', env: ['A'] },
  { command: 'x', env: null },
  { command: 'x', cwd: '' },
  { command: 'x', cwd: 7 },
  { command: 'x', disabled: 'yes' },
  { command: 'x', roots: 'no' },
  { command: 'x', includeTools: [' a'] },
  { command: 'x', includeTools: [''] },
  { command: 'x', includeTools: Array.from({ length: 513 }, (_, i) => `t${i}`) },
  { command: 'x', excludeTools: 'a' },
  { command: 'x', args: undefined },
  { command: 'x', env: { ['__proto__']: 'v' } },
  JSON.parse('{"command":"x","env":{"__proto__":"v","A":"1"}}'),
  JSON.parse('{"command":"x","__proto__":{"url":"http://h"}}'),
  [],
  null,
  'node',
  {},
];

/** The schema's answer, or undefined when it refuses. */
function schema(raw: unknown): unknown {
  const parsed = StdioServerConfigSchema.safeParse(raw);
  return parsed.success ? parsed.data : undefined;
}

describe('plainStdioEntry', () => {
  it('answers plain entries exactly as the schema does, key order included', () => {
    for (const raw of PLAIN) {
      const plain = plainStdioEntry(raw);
      expect(plain, JSON.stringify(raw)).toBeDefined();
      expect(JSON.stringify(plain)).toBe(JSON.stringify(schema(raw)));
      expect(plain).toEqual(schema(raw));
    }
  });

  it('never accepts what the schema refuses or would change', () => {
    for (const raw of TRICKY) {
      const plain = plainStdioEntry(raw);
      if (plain === undefined) continue;
      expect(schema(raw), JSON.stringify(raw)).toBeDefined();
      expect(JSON.stringify(plain), JSON.stringify(raw)).toBe(JSON.stringify(schema(raw)));
    }
  });

  it('returns copies, so a caller cannot change the parsed file through them', () => {
    const raw = { command: 'x', args: ['a'], env: { A: '1' } };
    const plain = plainStdioEntry(raw);
    expect(plain?.args).not.toBe(raw.args);
    expect(plain?.env).not.toBe(raw.env);
  });

  it('is what parseServerEntry answers for plain entries', () => {
    expect(parseServerEntry('/h/mcp.json', 'n', { command: 'node', args: ['s'] }, 'user')).toEqual({
      server: { transport: 'stdio', name: 'n', origin: 'user', command: 'node', args: ['s'] },
    });
    // Not plain: the schema trims and reports as before.
    expect(parseServerEntry('/h/mcp.json', 'n', { command: ' node ' }, 'user')).toEqual({
      server: { transport: 'stdio', name: 'n', origin: 'user', command: 'node' },
    });
    expect(
      'issues' in parseServerEntry('/h/mcp.json', 'n', { command: 'x', typo: 1 }, 'user'),
    ).toBe(true);
  });
});

import { describe, expect, it } from 'vitest';
import { KernelErrorCode } from './errors.js';
import { fnv1a64, normalizeNameSegment, qualifyToolName } from './naming.js';

describe('normalizeNameSegment', () => {
  it.each([
    ['read-file', 'read_file'],
    ['my server', 'my_server'],
    ['--fs--', 'fs'],
    ['a.b', 'a_b'],
    ['__x__', 'x'],
    ['ünïcode', 'n_code'],
    ['web_search', 'web_search'],
  ])('%j → %j', (input, expected) => {
    expect(normalizeNameSegment(input)).toBe(expected);
  });
});

describe('fnv1a64', () => {
  // Reference vectors of 64-bit FNV-1a (Fowler/Noll/Vo test suite).
  it.each([
    ['', 0xcbf29ce484222325n],
    ['a', 0xaf63dc4c8601ec8cn],
    ['foobar', 0x85944171f73967e8n],
  ])('%j', (input, expected) => {
    expect(fnv1a64(input)).toBe(expected);
  });
});

describe('qualifyToolName', () => {
  it.each([
    [['mcp', 'fs', 'read-file'], 'mcp_fs_read_file'],
    [['mcp', 'my server', 'a b'], 'mcp_my_server_a_b'],
    [['mcp', '--fs--', 'tool'], 'mcp_fs_tool'],
    [['wasm', 'hello.world', 'greet'], 'wasm_hello_world_greet'],
  ] as const)('%j → %s', ([prefix, source, tool], expected) => {
    expect(qualifyToolName(prefix, source, tool)).toBe(expected);
  });

  it('keeps names of exactly 64 characters', () => {
    const tool = 'x'.repeat(64 - 'mcp_s_'.length);
    expect(qualifyToolName('mcp', 's', tool)).toBe(`mcp_s_${tool}`);
  });

  it('cuts longer names to 64 characters with a stable FNV-1a suffix of the full name', () => {
    const tool = `a_${'very_long_tool_name_'.repeat(5)}end`;
    const full = `mcp_server_${tool}`;
    const name = qualifyToolName('mcp', 'server', tool);
    const suffix = (fnv1a64(full) & 0xffffffffn).toString(16).padStart(8, '0');
    expect(name).toHaveLength(64);
    expect(name).toBe(`${full.slice(0, 55)}_${suffix}`);
    expect(qualifyToolName('mcp', 'server', tool)).toBe(name);
  });

  it('gives long names sharing their first 55 characters different results', () => {
    const base = 'shared_prefix_'.repeat(5);
    const a = qualifyToolName('mcp', 'srv', `${base}alpha`);
    const b = qualifyToolName('mcp', 'srv', `${base}beta`);
    expect(a.slice(0, 55)).toBe(b.slice(0, 55));
    expect(a).not.toBe(b);
    expect(a).toMatch(/^[A-Za-z0-9_]{64}$/);
  });

  it('rejects a segment with no ASCII letters or digits', () => {
    expect(() => qualifyToolName('mcp', '---', 'tool')).toThrow(
      expect.objectContaining({ code: KernelErrorCode.REGISTRY_INVALID_NAME }),
    );
  });
});

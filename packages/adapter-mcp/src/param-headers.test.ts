import { describe, expect, it } from 'vitest';
import { encodeHeaderValue, paramHeaderValues, scanParamHeaders } from './param-headers.js';

const prop = (type: string, header: unknown) => ({ type, 'x-mcp-header': header });

describe('x-mcp-header scan', () => {
  it('collects declarations through nested properties', () => {
    const scan = scanParamHeaders({
      type: 'object',
      properties: {
        region: prop('string', 'Region'),
        opts: { type: 'object', properties: { verbose: prop('boolean', 'Verbose') } },
        plain: { type: 'string' },
      },
    });
    expect(scan).toEqual({
      headers: [
        { name: 'Region', path: ['region'] },
        { name: 'Verbose', path: ['opts', 'verbose'] },
      ],
    });
    expect(scanParamHeaders(undefined)).toEqual({ headers: [] });
  });

  it.each([
    ['an array property', { properties: { a: prop('array', 'A') } }, /string, integer or boolean/],
    [
      'an object property',
      { properties: { a: prop('object', 'A') } },
      /string, integer or boolean/,
    ],
    ['a number property', { properties: { a: prop('number', 'A') } }, /string, integer or boolean/],
    ['an empty name', { properties: { a: prop('string', '') } }, /HTTP token/],
    ['a name with a space', { properties: { a: prop('string', 'My Header') } }, /HTTP token/],
    [
      'a duplicate ignoring case',
      { properties: { a: prop('string', 'Region'), b: prop('string', 'REGION') } },
      /declared twice/,
    ],
    ['the root', { type: 'object', 'x-mcp-header': 'Root' }, /reached through "properties"/],
    [
      'a path through items',
      { properties: { list: { type: 'array', items: prop('string', 'Item') } } },
      /reached through "properties"/,
    ],
    ['a path through anyOf', { anyOf: [{ properties: { a: prop('string', 'A') } }] }, /reached/],
    ['a path through $defs', { $defs: { x: prop('string', 'X') } }, /reached/],
  ])('rejects a declaration on %s', (_what, schema, reason) => {
    const scan = scanParamHeaders(schema);
    expect('invalid' in scan && scan.invalid).toMatch(reason);
  });
});

describe('Mcp-Param-* values', () => {
  const declared = [
    { name: 'Region', path: ['region'] },
    { name: 'Days', path: ['days'] },
    { name: 'Verbose', path: ['opts', 'verbose'] },
    { name: 'Missing', path: ['nope'] },
  ];

  it('converts strings, integers and booleans; omits null and absent values', () => {
    expect(
      paramHeaderValues(declared, { region: 'eu-west', days: 3, opts: { verbose: false } }),
    ).toEqual({
      'mcp-param-region': 'eu-west',
      'mcp-param-days': '3',
      'mcp-param-verbose': 'false',
    });
    expect(paramHeaderValues(declared, { region: null, days: 2 })).toEqual({
      'mcp-param-days': '2',
    });
  });

  it('base64-encodes values that are not plain ASCII', () => {
    const { 'mcp-param-region': region } = paramHeaderValues(declared, { region: 'Zürich' });
    // The UTF-8 bytes of "Zürich", base64: the core encodes without Node's Buffer.
    expect(region).toBe('=?base64?WsO8cmljaA==?=');
  });

  it('adds to the record it is given', () => {
    const out = { 'mcp-method': 'tools/call' };
    expect(paramHeaderValues(declared, { days: 1 }, out)).toBe(out);
    expect(out).toEqual({ 'mcp-method': 'tools/call', 'mcp-param-days': '1' });
  });
});

describe('header-safe values (2026-07-28 rules)', () => {
  it('keeps plain ASCII and encodes the rest as the base64 sentinel', () => {
    expect(encodeHeaderValue('get_weather')).toBe('get_weather');
    expect(encodeHeaderValue('file:///a.txt')).toBe('file:///a.txt');
    expect(encodeHeaderValue(' padded')).toBe('=?base64?IHBhZGRlZA==?=');
    expect(encodeHeaderValue('wetter-übersicht')).toBe('=?base64?d2V0dGVyLcO8YmVyc2ljaHQ=?=');
    expect(encodeHeaderValue('=?base64?x?=')).toMatch(/^=\?base64\?/);
    expect(encodeHeaderValue('a\nb')).toMatch(/^=\?base64\?/);
  });
});

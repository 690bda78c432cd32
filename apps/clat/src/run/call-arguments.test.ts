import { describe, expect, it } from 'vitest';
import { isJsonArgument, parseKeyValueArguments } from './call-arguments.js';

const schema = {
  type: 'object',
  properties: {
    query: { type: 'string' },
    limit: { type: 'integer' },
    ratio: { type: 'number' },
    recursive: { type: 'boolean' },
    tags: { type: 'array', items: { type: 'string' } },
    filter: { type: 'object' },
    maybe: { type: ['integer', 'null'] },
    mode: { enum: ['a', 'b'] },
  },
  additionalProperties: false,
};

describe('clat call key=value arguments', () => {
  it('types values by the schema', () => {
    expect(
      parseKeyValueArguments(
        [
          'query=a=b c',
          'limit=5',
          'ratio=0.5',
          'recursive=false',
          'tags=["x"]',
          'filter={"k":1}',
          'maybe=null',
          'mode=b',
        ],
        schema,
      ),
    ).toEqual({
      query: 'a=b c',
      limit: 5,
      ratio: 0.5,
      recursive: false,
      tags: ['x'],
      filter: { k: 1 },
      maybe: null,
      mode: 'b',
    });
  });

  it('names the argument and the expected type when a value does not fit', () => {
    expect(() => parseKeyValueArguments(['limit=1.5'], schema)).toThrow(
      'clat call: limit="1.5" is not a valid integer',
    );
    expect(() => parseKeyValueArguments(['recursive=yes'], schema)).toThrow(
      'is not a valid boolean',
    );
    expect(() => parseKeyValueArguments(['tags=x'], schema)).toThrow('is not a valid array');
  });

  it('refuses unknown keys of a closed schema, repeats and words without =', () => {
    expect(() => parseKeyValueArguments(['nope=1'], schema)).toThrow(
      'the tool has no argument "nope"; it takes query, limit',
    );
    expect(() => parseKeyValueArguments(['limit=1', 'limit=2'], schema)).toThrow('given twice');
    expect(() => parseKeyValueArguments(['limit'], schema)).toThrow('is not key=value');
    expect(parseKeyValueArguments(['extra=1'], { type: 'object' })).toEqual({ extra: '1' });
    const open = {
      type: 'object',
      properties: { a: { type: 'string' } },
      additionalProperties: true,
    };
    expect(parseKeyValueArguments(['extra=1'], open)).toEqual({ extra: '1' });
    const implicit = { type: 'object', properties: { a: { type: 'string' } } };
    expect(() => parseKeyValueArguments(['extra=1'], implicit)).toThrow('no argument "extra"');
  });

  it('tells JSON from key=value', () => {
    expect(isJsonArgument(['{"a":1}'])).toBe(true);
    expect(isJsonArgument(['a=1'])).toBe(false);
    expect(isJsonArgument(['{"a":1}', 'b=2'])).toBe(false);
  });
});

describe('key=value arguments named like Object members', () => {
  it('keeps __proto__ and constructor as arguments of their own, sent as typed', () => {
    const open = {
      type: 'object',
      additionalProperties: true,
      properties: { n: { type: 'integer' } },
    };
    const args = parseKeyValueArguments(['__proto__=x', 'constructor=2', 'n=3'], open);
    expect(Object.keys(args)).toEqual(['__proto__', 'constructor', 'n']);
    // As sent on the wire: `constructor` is no schema property, so its text stays text.
    expect(JSON.parse(JSON.stringify(args))).toEqual(
      JSON.parse('{"__proto__":"x","constructor":"2","n":3}'),
    );
  });
});

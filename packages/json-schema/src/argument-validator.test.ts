import { describe, expect, it } from 'vitest';
import { compileArgumentValidator } from './argument-validator.js';

describe('compileArgumentValidator', () => {
  const validate = compileArgumentValidator({
    type: 'object',
    properties: {
      text: { type: 'string' },
      options: {
        type: 'object',
        properties: { style: { enum: ['short', 'long'] }, 'a/b': { type: 'integer' } },
        additionalProperties: false,
      },
    },
    required: ['text'],
  });

  it('accepts arguments that fit', () => {
    expect(validate({ text: 'hi', options: { style: 'short' } })).toBeUndefined();
  });

  it('names the missing, mistyped, unknown or out-of-range field', () => {
    expect(validate({})).toBe('field "text" is required');
    expect(validate({ text: 3 })).toBe('field "text" must be string');
    expect(validate({ text: 'x', options: { colour: 1 } })).toBe(
      'field "options.colour" is not allowed',
    );
    expect(validate({ text: 'x', options: { style: 'tiny' } })).toBe(
      'field "options.style" must be one of "short", "long"',
    );
    expect(validate({ text: 'x', options: { 'a/b': 1.5 } })).toBe(
      'field "options.a/b" must be integer',
    );
  });

  it('reads the 2020-12 dialect zod emits', () => {
    const zodStyle = compileArgumentValidator({
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'object',
      properties: { n: { type: 'number', exclusiveMinimum: 0 } },
      required: ['n'],
      additionalProperties: false,
    });
    expect(zodStyle({ n: 1 })).toBeUndefined();
    expect(zodStyle({ n: 0 })).toBe('field "n" must be > 0');
  });

  it('refuses a schema that is not a JSON Schema or points outside itself', () => {
    expect(() => compileArgumentValidator({ type: 'no-such-type' })).toThrow();
    expect(() => compileArgumentValidator({ $ref: 'https://example.com/remote.json' })).toThrow(
      /can't resolve reference/,
    );
  });

  it('compiles two schemas with the same $id independently', () => {
    const a = compileArgumentValidator({
      $id: 'https://example.com/tool.json',
      type: 'object',
      required: ['a'],
    });
    const b = compileArgumentValidator({
      $id: 'https://example.com/tool.json',
      type: 'object',
      required: ['b'],
    });
    expect(a({ b: 1 })).toBe('field "a" is required');
    expect(b({ a: 1 })).toBe('field "b" is required');
  });
});

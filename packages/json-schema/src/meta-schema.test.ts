import { describe, expect, it } from 'vitest';
import { dialectOf, errorsText, schemaProblem } from './meta-schema.js';

describe('schemaProblem', () => {
  it('reads the dialect from $schema, else the fallback', () => {
    expect(dialectOf('https://json-schema.org/draft/2020-12/schema', 'draft-07')).toBe('2020-12');
    expect(dialectOf('https://json-schema.org/draft/2019-09/schema', 'draft-07')).toBe('2019-09');
    expect(dialectOf('http://json-schema.org/draft-07/schema#', '2020-12')).toBe('draft-07');
    expect(dialectOf('http://json-schema.org/draft-04/schema#', '2020-12')).toBe('2020-12');
    expect(dialectOf(undefined, 'draft-07')).toBe('draft-07');
  });

  it('judges by the dialect: prefixItems is a 2020-12 keyword, an items array is draft-07', () => {
    // In draft-07 `items` may be an array (tuple); in 2020-12 it must be one schema.
    const tuple = { type: 'object', properties: { pair: { items: [{ type: 'string' }] } } };
    expect(schemaProblem(tuple, 'draft-07')).toBeUndefined();
    expect(schemaProblem(tuple, '2020-12', 'inputSchema')).toMatch(
      /^inputSchema\/properties\/pair\/items must be object/,
    );
    expect(
      schemaProblem({ $schema: 'http://json-schema.org/draft-07/schema#', ...tuple }, '2020-12'),
    ).toBeUndefined();
  });

  it('words the errors as Ajv does, under the name given', () => {
    expect(schemaProblem({ type: 'object', required: 'a' }, '2020-12', 'inputSchema')).toBe(
      'inputSchema/required must be array',
    );
    expect(errorsText([])).toBe('No errors');
  });
});

import { describe, expect, it } from 'vitest';
import { findDuplicateKeys } from './duplicate-keys.js';

describe('findDuplicateKeys', () => {
  it('names every repeated key by its dotted path', () => {
    const text = JSON.stringify({ mcpServers: { a: { args: ['x'] } } }).replace(
      '"a":',
      '"b":{"env":{"K":"1","K":"2"}},"a":{},"a":',
    );
    expect(findDuplicateKeys(text)).toEqual(['mcpServers.b.env.K', 'mcpServers.a']);
  });

  it('is not fooled by keys inside strings, escaped quotes or arrays', () => {
    const text = '{"s":"\\"s\\": 1, \\"s\\"","list":[{"k":1},{"k":2}],"q\\"":1,"q\\u0022":2}';
    expect(findDuplicateKeys(text)).toEqual(['q"']);
    expect(findDuplicateKeys('{"a":1,"b":{"a":2}}')).toEqual([]);
  });
});

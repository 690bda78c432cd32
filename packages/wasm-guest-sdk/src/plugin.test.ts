import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { definePlugin, defineTool, errorText } from './plugin.js';

const add = defineTool<{ a: number; b: number }>({
  name: 'add',
  description: 'Adds two numbers',
  effect: 'pure',
  inputSchema: { type: 'object', required: ['a', 'b'] },
  run: ({ a, b }) => ({ sum: a + b }),
});

const failing = defineTool({
  name: 'fails',
  description: 'Throws',
  effect: 'read',
  run() {
    throw new RangeError('nope');
  },
});

const tools = definePlugin({ tools: [add, failing] });

function thrown(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    return error;
  }
  return undefined;
}

describe('definePlugin', () => {
  it('lists definitions in the WIT shape, schemas as JSON text', () => {
    expect(tools.listTools()).toEqual([
      {
        name: 'add',
        description: 'Adds two numbers',
        inputSchema: '{"type":"object","required":["a","b"]}',
        effect: 'pure',
      },
      { name: 'fails', description: 'Throws', inputSchema: '{"type":"object"}', effect: 'read' },
    ]);
  });

  it('parses JSON arguments and returns JSON', () => {
    expect(JSON.parse(tools.call('add', '{"a":2,"b":3}'))).toEqual({ sum: 5 });
  });

  it('throws only strings, so no exception can trap the instance', () => {
    expect(thrown(() => tools.call('fails', '{}'))).toBe('nope');
    expect(thrown(() => tools.call('missing', '{}'))).toBe('unknown tool "missing"');
    expect(thrown(() => tools.call('add', '[1]'))).toBe('arguments of add must be a JSON object');
    expect(thrown(() => tools.call('add', '{'))).toBe('arguments of add are not valid JSON');
  });

  it('refuses async tools with a clear error', () => {
    const plugin = definePlugin({
      tools: [{ name: 'later', description: '', effect: 'pure', run: async () => 1 }],
    });
    expect(thrown(() => plugin.call('later', '{}'))).toBe(
      'tool later returned a Promise; guest tools must be synchronous',
    );
  });

  it('rejects duplicate tool names at definition', () => {
    expect(() => definePlugin({ tools: [add, add] })).toThrow('duplicate tool name "add"');
  });

  it('reads host error payloads (ComponentError) as text', () => {
    expect(errorText({ payload: 'HOST_NO_ACTIVE_RUN: no run' })).toBe('HOST_NO_ACTIVE_RUN: no run');
  });
});

describe('the shipped WIT contract', () => {
  it('is byte-identical to the kernel contract', () => {
    const shipped = readFileSync(new URL('../wit/plugin.wit', import.meta.url), 'utf8');
    const kernel = readFileSync(new URL('../../kernel/wit/plugin.wit', import.meta.url), 'utf8');
    expect(shipped).toBe(kernel);
  });
});

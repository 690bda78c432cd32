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

describe('definePlugin checks every tool spec when it is called', () => {
  const EFFECTS = 'pure, read, write, execute, network, external-read, destructive, session-write';
  // What plain JavaScript may pass: the types do not stop it.
  const define = (tool: Record<string, unknown>) => () =>
    definePlugin({
      tools: [add, { description: '', effect: 'pure', run: () => 1, ...tool }] as never,
    });

  it('refuses an effect outside the WIT enum, listing the allowed ones', () => {
    expect(define({ name: 'save', effect: 'writes' })).toThrow(
      new Error(`tool "save": effect "writes" is not one of ${EFFECTS}`),
    );
    expect(define({ name: 'save', effect: undefined })).toThrow(
      new Error(`tool "save": effect undefined is not one of ${EFFECTS}`),
    );
    // Not an own key of the enum, though every object has it.
    expect(define({ name: 'save', effect: 'toString' })).toThrow(
      `tool "save": effect "toString" is not one of`,
    );
  });

  it('accepts every effect of the enum', () => {
    for (const effect of EFFECTS.split(', ')) {
      expect(define({ name: 'ok', effect })().listTools()[1]).toMatchObject({ name: 'ok', effect });
    }
  });

  it('refuses a missing or empty name, naming the tool by its index', () => {
    expect(define({ name: '' })).toThrow(
      new Error('the tool at index 1: name must be a non-empty string (got "")'),
    );
    expect(define({ name: 42 })).toThrow(
      new Error('the tool at index 1: name must be a non-empty string (got 42)'),
    );
  });

  it('refuses a description that is not a string', () => {
    expect(define({ name: 'save', description: undefined })).toThrow(
      new Error('tool "save": description must be a string (got undefined)'),
    );
  });

  it('refuses an input schema that is not a plain object, or cannot be JSON', () => {
    expect(define({ name: 'save', inputSchema: 'object' })).toThrow(
      new Error('tool "save": inputSchema must be a plain object (got "object")'),
    );
    expect(define({ name: 'save', inputSchema: [] })).toThrow(
      new Error('tool "save": inputSchema must be a plain object (got an array)'),
    );
    expect(define({ name: 'save', inputSchema: null })).toThrow(
      new Error('tool "save": inputSchema must be a plain object (got null)'),
    );
    expect(define({ name: 'save', inputSchema: new Map() })).toThrow(
      new Error('tool "save": inputSchema must be a plain object (got an object)'),
    );
    const cyclic: Record<string, unknown> = { type: 'object' };
    cyclic.self = cyclic;
    expect(define({ name: 'save', inputSchema: cyclic })).toThrow(
      new Error(
        'tool "save": inputSchema cannot be written as JSON (Converting circular structure to JSON)',
      ),
    );
  });

  it('refuses a run that is not a function', () => {
    expect(define({ name: 'save', run: 'save()' })).toThrow(
      new Error('tool "save": run must be a function (got "save()")'),
    );
  });

  it('refuses a tool that is not an object, and tools that are not an array', () => {
    expect(() => definePlugin({ tools: [add, null] as never })).toThrow(
      new Error('the tool at index 1 is not a tool spec object (got null)'),
    );
    expect(() => definePlugin({ tools: add } as never)).toThrow(
      new Error('definePlugin needs { tools: [...] }, an array of tool specs (got an object)'),
    );
    expect(() => definePlugin(undefined as never)).toThrow(
      new Error('definePlugin needs { tools: [...] }, an array of tool specs (got undefined)'),
    );
  });

  it('accepts a tool whose run is inherited (a class instance)', () => {
    class Echo {
      readonly name = 'echo';
      readonly description = 'Echoes';
      readonly effect = 'pure' as const;
      run(args: unknown) {
        return args;
      }
    }
    const plugin = definePlugin({ tools: [new Echo()] });
    expect(JSON.parse(plugin.call('echo', '{"a":1}'))).toEqual({ a: 1 });
  });
});

describe('the shipped WIT contract', () => {
  it('is byte-identical to the kernel contract', () => {
    const shipped = readFileSync(new URL('../wit/plugin.wit', import.meta.url), 'utf8');
    const kernel = readFileSync(new URL('../../kernel/wit/plugin.wit', import.meta.url), 'utf8');
    expect(shipped).toBe(kernel);
  });
});

import { describe, expect, it } from 'vitest';
import { KernelErrorCode } from './errors.js';
import type { JsonObject } from './json.js';
import { LIMITS } from './limits.js';
import { PromptRegistry } from './prompt-registry.js';
import { createGlobalScope } from './scope.js';
import { type Tool, ToolRegistry } from './tool-registry.js';

/** Half of a surrogate pair on its own (`String#isWellFormed` is ES2024, past this lib). */
const LONE_SURROGATE = /\p{Surrogate}/u;

function tool(name: string, kind = 'mcp', id = 'srv', description = 'd'): Tool {
  return {
    definition: {
      name,
      description,
      inputSchema: { type: 'object' },
      effect: 'read',
      source: { kind, id },
    },
    invoke: async () => ({ content: `${kind}:${id}:${name}` }),
  };
}

describe('ToolRegistry', () => {
  it('rejects a duplicate name, keeps the first owner and records the collision', async () => {
    const scope = createGlobalScope();
    const registry = new ToolRegistry();
    registry.register(tool('read_file', 'native', ''), scope);
    expect(() => registry.register(tool('read_file', 'mcp', 'evil'), scope)).toThrow(
      expect.objectContaining({ code: KernelErrorCode.REGISTRY_DUPLICATE_NAME }),
    );
    expect(registry.get('read_file')?.definition.source).toEqual({ kind: 'native', id: '' });
    expect(registry.diagnostics()).toEqual([
      expect.objectContaining({
        name: 'read_file',
        code: KernelErrorCode.REGISTRY_DUPLICATE_NAME,
        message: expect.stringContaining(
          'already registered by native; mcp:evil cannot replace it',
        ),
      }),
    ]);
    await scope.close();
  });

  it('rejects registrations after freeze but still lets leases revoke', async () => {
    const scope = createGlobalScope();
    const registry = new ToolRegistry();
    const lease = registry.register(tool('a'), scope);
    registry.freeze();
    expect(() => registry.register(tool('b'), scope)).toThrow(
      expect.objectContaining({ code: KernelErrorCode.REGISTRY_FROZEN }),
    );
    await lease.release();
    expect(registry.has('a')).toBe(false);
    expect(registry.list()).toEqual([]);
    await scope.close();
  });

  it('revokes a name only while the lease owner still holds it', async () => {
    const scope = createGlobalScope();
    const registry = new ToolRegistry();
    const first = registry.register(tool('x', 'mcp', 'one'), scope);
    await first.release();
    registry.register(tool('x', 'mcp', 'two'), scope);
    await first.release();
    expect(registry.get('x')?.definition.source.id).toBe('two');
    await scope.close();
    expect(registry.has('x')).toBe(false);
  });

  it('revokes every tool of a closed scope and keeps the others', async () => {
    const root = createGlobalScope();
    const project = root.child('project');
    const registry = new ToolRegistry();
    registry.register(tool('native_tool', 'native', ''), root);
    registry.register(tool('mcp_a_x'), project);
    registry.register(tool('mcp_a_y'), project);
    await project.close();
    expect(registry.list().map((d) => d.name)).toEqual(['native_tool']);
    await root.close();
  });

  it('cuts over-long descriptions and notes it', async () => {
    const scope = createGlobalScope();
    const registry = new ToolRegistry();
    registry.register(
      tool('long', 'mcp', 's', 'x'.repeat(LIMITS.toolDescriptionChars + 10)),
      scope,
    );
    const description = registry.get('long')?.definition.description ?? '';
    expect(description).toHaveLength(LIMITS.toolDescriptionChars);
    expect(description.endsWith('[truncated by host]')).toBe(true);
    // A cut that would fall inside an emoji's surrogate pair keeps the pair whole, or drops it.
    const keep = LIMITS.toolDescriptionChars - '… [truncated by host]'.length;
    registry.register(
      tool('emoji', 'mcp', 's', `${'E'.repeat(keep - 1)}${'😀'.repeat(40)}`),
      scope,
    );
    const cut = registry.get('emoji')?.definition.description ?? '';
    expect(cut).not.toMatch(LONE_SURROGATE);
    expect(cut).toBe(`${'E'.repeat(keep - 1)}… [truncated by host]`);
    expect(registry.diagnostics()[0]?.code).toBe(KernelErrorCode.LIMIT_EXCEEDED);
    const signal = new AbortController().signal;
    await expect(
      registry
        .get('long')
        ?.invoke({}, { callId: 'c', run: { id: 'r', mode: 'read-only', signal }, signal }),
    ).resolves.toEqual({
      content: 'mcp:s:long',
    });
    await scope.close();
  });

  it('rejects an input schema nested deeper than the limit and records it', async () => {
    const scope = createGlobalScope();
    const registry = new ToolRegistry();
    // An object of `depth` levels, built iteratively (a recursive builder would overflow first).
    const nested = (depth: number): JsonObject => {
      let schema: JsonObject = { type: 'object' };
      for (let level = 1; level < depth; level++) schema = { type: 'object', not: schema };
      return schema;
    };
    const withSchema = (name: string, inputSchema: JsonObject): Tool => {
      const base = tool(name);
      return { ...base, definition: { ...base.definition, inputSchema } };
    };
    // 20,000 levels is what overflowed `clat tools --json`.
    const hostile = nested(20_000);
    expect(() => registry.register(withSchema('hostile', hostile), scope)).toThrow(
      expect.objectContaining({ code: KernelErrorCode.LIMIT_EXCEEDED }),
    );
    registry.register(withSchema('at_limit', nested(LIMITS.toolSchemaDepth)), scope);
    expect(() =>
      registry.register(withSchema('over', nested(LIMITS.toolSchemaDepth + 1)), scope),
    ).toThrow(
      `input schema of tool "over" nests more than ${LIMITS.toolSchemaDepth} levels deep (the limit); mcp:srv cannot register it`,
    );
    expect(registry.list().map((definition) => definition.name)).toEqual(['at_limit']);
    expect(registry.diagnostics().map(({ name, code }) => [name, code])).toEqual([
      ['hostile', KernelErrorCode.LIMIT_EXCEEDED],
      ['over', KernelErrorCode.LIMIT_EXCEEDED],
    ]);
    registry.freeze();
    expect(() => registry.register(withSchema('late', hostile), scope)).toThrow(
      expect.objectContaining({ code: KernelErrorCode.REGISTRY_FROZEN }),
    );
    await scope.close();
  });
});

describe('PromptRegistry', () => {
  it('assembles contributions in order, rejects duplicates and freezes', async () => {
    const scope = createGlobalScope();
    const prompts = new PromptRegistry();
    const source = { kind: 'mcp', id: 'todo' };
    const lease = prompts.register({ name: 'a', source, text: ' first ' }, scope);
    prompts.register({ name: 'b', source, text: '' }, scope);
    prompts.register({ name: 'c', source, text: 'second' }, scope);
    expect(() => prompts.register({ name: 'a', source, text: 'dup' }, scope)).toThrow(
      expect.objectContaining({ code: KernelErrorCode.REGISTRY_DUPLICATE_NAME }),
    );
    expect(prompts.assemble()).toBe('first\n\nsecond');
    prompts.freeze();
    expect(() => prompts.register({ name: 'd', source, text: 'late' }, scope)).toThrow(
      expect.objectContaining({ code: KernelErrorCode.REGISTRY_FROZEN }),
    );
    await lease.release();
    expect(prompts.assemble()).toBe('second');
    await scope.close();
  });
});

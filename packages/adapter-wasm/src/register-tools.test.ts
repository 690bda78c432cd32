import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { GuestToolDefinition } from './guest-host-contract.js';
import { registerTools, unusableSchemasOf } from './register-tools.js';
import { createHarness } from './test-support/harness.js';

const definition = (name: string, inputSchema: string): GuestToolDefinition => ({
  name,
  description: `does ${name}`,
  inputSchema,
  effect: 'pure',
});

const SIZES = '{"type":"object","properties":{"size":{"enum":["s","m"]}},"required":["size"]}';
// Not a JSON Schema: the meta-schema check refuses it.
const DUPLICATE = '{"type":"object","required":["a","a"]}';
// A JSON Schema Ajv cannot compile: its reference resolves nowhere.
const DANGLING = '{"$ref":"#/definitions/missing"}';

const definitions = [
  definition('pick', SIZES),
  definition('broken', DUPLICATE),
  definition('dangling', DANGLING),
  definition('again', DANGLING),
  definition('garbled', '{'),
];

const guest = { call: async () => ({ kind: 'ok' as const, value: '"done"' }) };

describe('registering a WASM plugin tool list', () => {
  let h: ReturnType<typeof createHarness>;
  beforeEach(() => {
    h = createHarness();
  });
  afterEach(async () => h.dispose());

  /** What registerTools reads of a mount's options: the plugin's name, registry and scope. */
  const optionsOf = (name: string) => ({ ...h.mountOptions(name), componentPath: 'unused.wasm' });

  const run = () => ({
    runId: 'r',
    mode: 'read-only' as const,
    signal: new AbortController().signal,
  });

  it('compiles every schema now and reports the unusable ones, as unusableSchemasOf does', () => {
    const warnings: string[] = [];
    const result = registerTools(optionsOf('p'), guest, definitions, warnings, undefined);
    expect(result.registered).toBe(1);
    expect([...result.unusableSchemas.keys()].sort()).toEqual([DANGLING, DUPLICATE].sort());
    expect(result.unusableSchemas.get(DANGLING)).toMatch(/can't resolve reference/);
    expect(result.unusableSchemas.get(DUPLICATE)).toMatch(/^schema is invalid: /);
    expect(warnings).toEqual([
      `tool "broken" skipped: its input-schema is not a usable JSON Schema (${result.unusableSchemas.get(DUPLICATE)})`,
      `tool "dangling" skipped: its input-schema is not a usable JSON Schema (${result.unusableSchemas.get(DANGLING)})`,
      `tool "again" skipped: its input-schema is not a usable JSON Schema (${result.unusableSchemas.get(DANGLING)})`,
      'tool "garbled" skipped: its input-schema is not valid JSON',
    ]);
    expect(unusableSchemasOf(definitions)).toEqual(result.unusableSchemas);
  });

  it('registered before: skips with the same notes, and checks arguments at the first call', async () => {
    const eager: string[] = [];
    const judged = registerTools(optionsOf('p'), guest, definitions, eager, undefined);
    await h.scope.pluginScope('p').close();

    const warnings: string[] = [];
    let forgotten = 0;
    const result = registerTools(optionsOf('q'), guest, definitions, warnings, undefined, {
      unusableSchemas: judged.unusableSchemas,
      forget: async () => {
        forgotten++;
      },
    });
    expect(result).toEqual({ registered: 1, unusableSchemas: judged.unusableSchemas });
    expect(warnings).toEqual(eager);
    // The schema the definition shows is not what the first call compiles: the guest's text is.
    const shown = h.registry.get('wasm_q_pick')?.definition.inputSchema as {
      properties: { size: { enum: string[] } };
    };
    shown.properties.size.enum.push('xl');
    await expect(h.pipeline.call('wasm_q_pick', { size: 'xl' }, run())).rejects.toMatchObject({
      code: 'TOOL_INVALID_ARGUMENTS',
      message: expect.stringContaining('field "size" must be one of "s", "m"'),
    });
    expect(await h.pipeline.call('wasm_q_pick', { size: 's' }, run())).toMatchObject({
      content: 'done',
    });
    expect(forgotten).toBe(0);
  });

  it('registered before without a verdict: a schema that does not compile at the first call fails every call and forgets the list once', async () => {
    const warnings: string[] = [];
    let forgotten = 0;
    const result = registerTools(optionsOf('q'), guest, definitions, warnings, undefined, {
      unusableSchemas: new Map(),
      forget: async () => {
        forgotten++;
      },
    });
    // Only the meta-schema-invalid and garbled ones would need a compile to be found: without
    // verdicts, a list registered before skips only what needs no compile.
    expect(result.registered).toBe(4);
    expect(warnings).toEqual(['tool "garbled" skipped: its input-schema is not valid JSON']);
    for (const tool of ['wasm_q_dangling', 'wasm_q_again', 'wasm_q_dangling']) {
      const called = await h.pipeline.call(tool, {}, run());
      expect(called).toMatchObject({ isError: true });
      expect(called.content).toMatch(
        /cannot be called: its input-schema is not a usable JSON Schema \(can't resolve reference/,
      );
    }
    expect(forgotten).toBe(1);
  });
});

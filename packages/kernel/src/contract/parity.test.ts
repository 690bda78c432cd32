import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type * as z from 'zod';
import { type ContractInterface, PLUGIN_CONTRACT, PLUGIN_WORLD } from './plugin-contract.js';
import { parseWit, type WitDocument, type WitType, type WitTypeDef, witToCamel } from './wit.js';

// A shape language both sides reduce to; if the WIT file and the zod mirror disagree on any name,
// field, case or type, the reduced shapes differ.
type Shape =
  | { t: 'string' | 'boolean' | 'integer' | 'number' }
  | { t: 'array' | 'optional'; of: Shape }
  | { t: 'tuple'; items: Shape[] }
  | { t: 'result'; ok: Shape | null; err: Shape | null }
  | { t: 'object'; fields: Record<string, Shape> }
  | { t: 'enum'; values: string[] }
  | { t: 'variant'; cases: Record<string, Shape | null> };

const witSource = readFileSync(new URL('../../wit/plugin.wit', import.meta.url), 'utf8');
const doc = parseWit(witSource);

/** Finds a named type and the interface that defines it (following `use`). */
function resolveRef(
  doc: WitDocument,
  iface: string,
  name: string,
): { iface: string; def: WitTypeDef } {
  const own = doc.interfaces.get(iface);
  const local = own?.types.get(name);
  if (local) return { iface, def: local };
  for (const use of own?.uses ?? []) {
    if (use.names.includes(name)) return resolveRef(doc, use.from, name);
  }
  throw new Error(`WIT type ${name} not found in ${iface}`);
}

function witShape(iface: string, type: WitType): Shape {
  switch (type.kind) {
    case 'primitive':
      if (type.name === 'string' || type.name === 'char') return { t: 'string' };
      if (type.name === 'bool') return { t: 'boolean' };
      if (type.name.startsWith('f')) return { t: 'number' };
      return { t: 'integer' };
    case 'list':
      return { t: 'array', of: witShape(iface, type.element) };
    case 'option':
      return { t: 'optional', of: witShape(iface, type.inner) };
    case 'tuple':
      return { t: 'tuple', items: type.items.map((item) => witShape(iface, item)) };
    case 'result':
      return {
        t: 'result',
        ok: type.ok && witShape(iface, type.ok),
        err: type.err && witShape(iface, type.err),
      };
    case 'ref': {
      const found = resolveRef(doc, iface, type.name);
      return witDefShape(found.iface, found.def);
    }
  }
}

function witDefShape(iface: string, def: WitTypeDef): Shape {
  if (def.kind === 'enum') return { t: 'enum', values: def.cases };
  if (def.kind === 'variant') {
    return {
      t: 'variant',
      cases: Object.fromEntries(def.cases.map((c) => [c.name, c.type && witShape(iface, c.type)])),
    };
  }
  return {
    t: 'object',
    fields: Object.fromEntries(
      def.fields.map((f) => [witToCamel(f.name), witShape(iface, f.type)]),
    ),
  };
}

interface ZodDef {
  type: string;
  element?: z.ZodType;
  innerType?: z.ZodType;
  items?: z.ZodType[];
  shape?: Record<string, z.ZodType>;
  entries?: Record<string, string>;
  options?: z.ZodType[];
  values?: unknown[];
}

const defOf = (schema: z.ZodType) => (schema as unknown as { _zod: { def: ZodDef } })._zod.def;

function zodShape(schema: z.ZodType): Shape {
  const def = defOf(schema);
  switch (def.type) {
    case 'string':
      return { t: 'string' };
    case 'boolean':
      return { t: 'boolean' };
    case 'number':
      return (schema as unknown as { isInt: boolean }).isInt ? { t: 'integer' } : { t: 'number' };
    case 'array':
      return { t: 'array', of: zodShape(def.element as z.ZodType) };
    case 'optional':
      return { t: 'optional', of: zodShape(def.innerType as z.ZodType) };
    case 'tuple':
      return { t: 'tuple', items: (def.items ?? []).map(zodShape) };
    case 'enum':
      return { t: 'enum', values: Object.values(def.entries ?? {}) };
    case 'object':
      return {
        t: 'object',
        fields: Object.fromEntries(
          Object.entries(def.shape ?? {}).map(([k, v]) => [k, zodShape(v)]),
        ),
      };
    case 'union': {
      const cases: Record<string, Shape | null> = {};
      for (const option of def.options ?? []) {
        const shape = defOf(option).shape ?? {};
        const tag = defOf(shape.tag as z.ZodType).values?.[0] as string;
        cases[tag] = shape.val ? zodShape(shape.val) : null;
      }
      const tags = Object.keys(cases).sort();
      if (tags.join() === 'err,ok')
        return { t: 'result', ok: cases.ok ?? null, err: cases.err ?? null };
      return { t: 'variant', cases };
    }
    default:
      throw new Error(`zod type ${def.type} has no WIT counterpart`);
  }
}

describe('WIT ⇄ zod contract parity', () => {
  const contract = PLUGIN_CONTRACT as unknown as Record<string, ContractInterface>;

  it('declares the same package, world, imports and exports', () => {
    expect(doc.package).toBe(PLUGIN_WORLD.package);
    expect(doc.worlds.get(PLUGIN_WORLD.name)).toEqual({
      imports: [...PLUGIN_WORLD.imports],
      exports: [...PLUGIN_WORLD.exports],
    });
  });

  it('has the same interfaces', () => {
    expect([...doc.interfaces.keys()].sort()).toEqual(Object.keys(contract).sort());
  });

  for (const [name, iface] of doc.interfaces) {
    describe(`interface ${name}`, () => {
      const mirror = contract[name] as ContractInterface;

      it('has the same named types with the same shapes', () => {
        expect(Object.keys(mirror.types).sort()).toEqual([...iface.types.keys()].sort());
        for (const [typeName, def] of iface.types) {
          expect(zodShape(mirror.types[typeName] as z.ZodType), `${name}.${typeName}`).toEqual(
            witDefShape(name, def),
          );
        }
      });

      it('has the same functions, parameters and results', () => {
        expect(Object.keys(mirror.functions).sort()).toEqual(
          iface.functions.map((fn) => witToCamel(fn.name)).sort(),
        );
        for (const fn of iface.functions) {
          const twin = mirror.functions[witToCamel(fn.name)];
          expect(twin, fn.name).toBeDefined();
          if (twin === undefined) continue;
          expect(Object.keys(twin.params)).toEqual(fn.params.map((p) => witToCamel(p.name)));
          for (const param of fn.params) {
            expect(
              zodShape(twin.params[witToCamel(param.name)] as z.ZodType),
              `${fn.name}(${param.name})`,
            ).toEqual(witShape(name, param.type));
          }
          expect(twin.result && zodShape(twin.result), `${fn.name} result`).toEqual(
            fn.result && witShape(name, fn.result),
          );
        }
      });
    });
  }

  it('catches drift: a renamed field changes the reduced shape', () => {
    const drifted = parseWit(witSource.replace('input-schema: string', 'input-schemas: string'));
    const def = drifted.interfaces.get('types')?.types.get('definition') as WitTypeDef;
    expect(zodShape(PLUGIN_CONTRACT.types.types.definition)).not.toEqual(witDefShape('types', def));
  });
});

describe('parseWit', () => {
  it('rejects items outside the supported subset with the offending token', () => {
    expect(() => parseWit('package a:b@0.1.0;\nresource thing {}')).toThrow(
      /unsupported WIT item "resource"/,
    );
  });
});

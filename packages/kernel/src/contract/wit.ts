/**
 * A reader for the WIT subset the plugin contract uses (interfaces, records, enums, variants,
 * functions, worlds). It lets tests and the WASM host check components against wit/plugin.wit.
 * @module
 */

export type WitType =
  | { kind: 'primitive'; name: string }
  | { kind: 'list'; element: WitType }
  | { kind: 'option'; inner: WitType }
  | { kind: 'result'; ok: WitType | null; err: WitType | null }
  | { kind: 'tuple'; items: WitType[] }
  | { kind: 'ref'; name: string };

export type WitTypeDef =
  | { kind: 'record'; fields: { name: string; type: WitType }[] }
  | { kind: 'enum'; cases: string[] }
  | { kind: 'variant'; cases: { name: string; type: WitType | null }[] };

export interface WitFunction {
  name: string;
  params: { name: string; type: WitType }[];
  result: WitType | null;
}

export interface WitInterface {
  name: string;
  uses: { from: string; names: string[] }[];
  types: Map<string, WitTypeDef>;
  functions: WitFunction[];
}

export interface WitDocument {
  package: string;
  interfaces: Map<string, WitInterface>;
  worlds: Map<string, { imports: string[]; exports: string[] }>;
}

const PRIMITIVES = new Set([
  'bool',
  's8',
  's16',
  's32',
  's64',
  'u8',
  'u16',
  'u32',
  'u64',
  'f32',
  'f64',
  'char',
  'string',
]);

function tokenize(source: string): string[] {
  const withoutComments = source.replace(/\/\/[^\n]*/g, '').replace(/\/\*[\s\S]*?\*\//g, '');
  // Package names (`ns:pkg/iface@1.2.3`) first; plain identifiers never contain `:` or `@`.
  const token =
    /[a-z][a-z0-9-]*:[a-z][a-z0-9-]*(?:\/[a-z][a-z0-9-]*)?(?:@[0-9A-Za-z.+-]+)?|->|%?[A-Za-z_][A-Za-z0-9_-]*\.?|[{}()<>,;:=*]/g;
  return withoutComments.match(token) ?? [];
}

class Parser {
  #i = 0;
  readonly tokens: string[];
  constructor(tokens: string[]) {
    this.tokens = tokens;
  }

  peek(): string | undefined {
    return this.tokens[this.#i];
  }
  next(): string {
    const token = this.tokens[this.#i++];
    if (token === undefined) throw new Error('unexpected end of WIT');
    return token;
  }
  expect(token: string): void {
    const got = this.next();
    if (got !== token)
      throw new Error(`expected ${JSON.stringify(token)} in WIT, got ${JSON.stringify(got)}`);
  }
  eat(token: string): boolean {
    if (this.peek() === token) {
      this.#i++;
      return true;
    }
    return false;
  }

  type(): WitType {
    const name = this.next();
    if (name === 'list') {
      this.expect('<');
      const element = this.type();
      this.expect('>');
      return { kind: 'list', element };
    }
    if (name === 'option') {
      this.expect('<');
      const inner = this.type();
      this.expect('>');
      return { kind: 'option', inner };
    }
    if (name === 'tuple') {
      this.expect('<');
      const items = [this.type()];
      while (this.eat(',')) items.push(this.type());
      this.expect('>');
      return { kind: 'tuple', items };
    }
    if (name === 'result') {
      if (!this.eat('<')) return { kind: 'result', ok: null, err: null };
      const ok = this.eat('_') ? null : this.type();
      const err = this.eat(',') ? this.type() : null;
      this.expect('>');
      return { kind: 'result', ok, err };
    }
    return PRIMITIVES.has(name) ? { kind: 'primitive', name } : { kind: 'ref', name };
  }

  block<T>(item: () => T): T[] {
    this.expect('{');
    const items: T[] = [];
    while (!this.eat('}')) {
      items.push(item());
      this.eat(',');
    }
    return items;
  }
}

/** Parses WIT text; throws with the offending token on anything outside the supported subset. */
export function parseWit(source: string): WitDocument {
  const p = new Parser(tokenize(source));
  const doc: WitDocument = { package: '', interfaces: new Map(), worlds: new Map() };
  while (p.peek() !== undefined) {
    const keyword = p.next();
    if (keyword === 'package') {
      doc.package = p.next();
      p.expect(';');
    } else if (keyword === 'interface') {
      const iface: WitInterface = { name: p.next(), uses: [], types: new Map(), functions: [] };
      p.expect('{');
      while (!p.eat('}')) {
        const kw = p.next();
        if (kw === 'use') {
          const path = p.next();
          const dot = path.lastIndexOf('.');
          const from = dot === -1 ? path : path.slice(0, dot);
          const names = p.block(() => p.next());
          p.expect(';');
          iface.uses.push({ from, names });
        } else if (kw === 'record') {
          const name = p.next();
          const fields = p.block(() => {
            const field = p.next();
            p.expect(':');
            return { name: field, type: p.type() };
          });
          iface.types.set(name, { kind: 'record', fields });
        } else if (kw === 'enum') {
          const name = p.next();
          iface.types.set(name, { kind: 'enum', cases: p.block(() => p.next()) });
        } else if (kw === 'variant') {
          const name = p.next();
          const cases = p.block(() => {
            const caseName = p.next();
            if (!p.eat('(')) return { name: caseName, type: null };
            const type = p.type();
            p.expect(')');
            return { name: caseName, type };
          });
          iface.types.set(name, { kind: 'variant', cases });
        } else {
          // name: func(params) -> result;
          const name = kw;
          p.expect(':');
          p.expect('func');
          p.expect('(');
          const params: { name: string; type: WitType }[] = [];
          while (!p.eat(')')) {
            const param = p.next();
            p.expect(':');
            params.push({ name: param, type: p.type() });
            p.eat(',');
          }
          const result = p.eat('->') ? p.type() : null;
          p.expect(';');
          iface.functions.push({ name, params, result });
        }
      }
      doc.interfaces.set(iface.name, iface);
    } else if (keyword === 'world') {
      const name = p.next();
      const world = { imports: [] as string[], exports: [] as string[] };
      p.expect('{');
      while (!p.eat('}')) {
        const kw = p.next();
        const target = p.next();
        p.expect(';');
        if (kw === 'import') world.imports.push(target);
        else if (kw === 'export') world.exports.push(target);
        else throw new Error(`unsupported world item ${JSON.stringify(kw)} in WIT`);
      }
      doc.worlds.set(name, world);
    } else {
      throw new Error(`unsupported WIT item ${JSON.stringify(keyword)}`);
    }
  }
  return doc;
}

/** kebab-case WIT identifier → camelCase JavaScript name (jco's convention). */
export function witToCamel(name: string): string {
  return name.replace(/-([a-z0-9])/g, (_m, c: string) => c.toUpperCase());
}

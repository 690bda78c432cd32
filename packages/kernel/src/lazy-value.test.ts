import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { lazyValue } from './lazy-value.js';

describe('lazyValue', () => {
  it('builds on first use, once, and then behaves as the value', () => {
    let builds = 0;
    const Inner = lazyValue(() => {
      builds++;
      return z.object({ n: z.number().int().min(1) }).strict();
    });
    expect(builds).toBe(0);
    const Outer = z.object({ inner: Inner, list: z.array(Inner).optional() });
    expect(builds).toBe(0);
    expect(Outer.safeParse({ inner: { n: 2 }, list: [{ n: 3 }] }).success).toBe(true);
    const bad = Outer.safeParse({ inner: { n: 0, extra: true } });
    expect(bad.success).toBe(false);
    expect(bad.error?.issues.map((issue) => issue.path.join('.')).sort()).toEqual([
      'inner',
      'inner.n',
    ]);
    expect(Inner.parse({ n: 1 })).toEqual({ n: 1 });
    expect(Inner instanceof z.ZodObject).toBe(true);
    expect(Inner.optional().safeParse(undefined).success).toBe(true);
    expect(z.toJSONSchema(Inner)).toMatchObject({ type: 'object', required: ['n'] });
    expect(builds).toBe(1);
  });

  it('forwards own keys and property descriptors of a plain table', () => {
    const table = lazyValue(() => ({ a: 1, b: { c: 2 } }) as const);
    expect(Object.keys(table)).toEqual(['a', 'b']);
    expect(Object.entries(table)).toEqual([
      ['a', 1],
      ['b', { c: 2 }],
    ]);
    expect('a' in table).toBe(true);
    expect(table.b.c).toBe(2);
  });
});

import { describe, expect, it } from 'vitest';
import { utf8Length } from '../json.js';
import { LIMITS } from '../limits.js';
import { boundHistory } from './context-snapshot.js';

describe('boundHistory', () => {
  it('keeps the last items up to the count limit, oldest first', () => {
    const items = Array.from({ length: LIMITS.contextMessages + 10 }, (_, i) => ({ i }));
    const kept = boundHistory(items);
    expect(kept).toHaveLength(LIMITS.contextMessages);
    expect(kept[0]).toEqual({ i: 10 });
    expect(kept.at(-1)).toEqual({ i: LIMITS.contextMessages + 9 });
  });

  it('drops the oldest items while the JSON is over the byte limit', () => {
    const chunk = 'x'.repeat(LIMITS.contextSnapshotBytes / 4);
    const items = Array.from({ length: 6 }, (_, i) => ({ i, chunk }));
    const kept = boundHistory(items) as { i: number }[];
    expect(utf8Length(JSON.stringify(kept))).toBeLessThanOrEqual(LIMITS.contextSnapshotBytes);
    expect(kept.map((item) => item.i)).toEqual([3, 4, 5]);
  });

  it('keeps a list of exactly the byte limit and empties one oversized item', () => {
    // `["…"]` is 4 bytes of framing around the string content.
    const exact = ['y'.repeat(LIMITS.contextSnapshotBytes - 4)];
    expect(utf8Length(JSON.stringify(exact))).toBe(LIMITS.contextSnapshotBytes);
    expect(boundHistory(exact)).toEqual(exact);
    expect(boundHistory(['y'.repeat(LIMITS.contextSnapshotBytes - 3)])).toEqual([]);
  });

  it('returns detached copies and skips what JSON cannot carry', () => {
    const item = { nested: { value: 1 } };
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    const kept = boundHistory([item, cyclic, 10n, () => 1]) as (typeof item)[];
    expect(kept).toEqual([item]);
    (kept[0] as typeof item).nested.value = 2;
    expect(item.nested.value).toBe(1);
  });
});

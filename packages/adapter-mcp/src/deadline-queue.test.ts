import { afterEach, describe, expect, it, vi } from 'vitest';
import { type DeadlineEntry, DeadlineQueue } from './deadline-queue.js';

function entry(name: string, expired: string[], onExpire?: () => void): DeadlineEntry {
  return {
    deadlineAt: 0,
    deadlineLane: -1,
    deadlineSlot: 0,
    expire() {
      expired.push(name);
      onExpire?.();
    },
  };
}

afterEach(() => {
  vi.useRealTimers();
});

describe('DeadlineQueue', () => {
  it('expires entries of one duration in order and never a settled one', () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
    const queue = new DeadlineQueue();
    const expired: string[] = [];
    const a = entry('a', expired);
    const b = entry('b', expired);
    const c = entry('c', expired);
    queue.add(a, 100);
    vi.advanceTimersByTime(10);
    queue.add(b, 100);
    vi.advanceTimersByTime(10);
    queue.add(c, 100);
    queue.settle(b);
    vi.advanceTimersByTime(85);
    expect(expired).toEqual(['a']);
    vi.advanceTimersByTime(20);
    expect(expired).toEqual(['a', 'c']);
    queue.close();
  });

  it('keeps separate lanes per duration and lets an expiring entry re-arm itself', () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
    const queue = new DeadlineQueue();
    const expired: string[] = [];
    let extensions = 2;
    const long = entry('long', expired);
    const extended: DeadlineEntry = entry('extended', expired, () => {
      if (extensions-- > 0) queue.add(extended, 30);
    });
    queue.add(long, 1000);
    queue.add(extended, 50);
    vi.advanceTimersByTime(50);
    expect(expired).toEqual(['extended']);
    vi.advanceTimersByTime(60);
    expect(expired).toEqual(['extended', 'extended', 'extended']);
    vi.advanceTimersByTime(1000);
    expect(expired).toEqual(['extended', 'extended', 'extended', 'long']);
    queue.close();
  });

  it('settles thousands out of order (holes compacted) and expires only the survivors', () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
    const queue = new DeadlineQueue();
    const expired: string[] = [];
    const entries = Array.from({ length: 5000 }, (_, i) => entry(String(i), expired));
    for (const each of entries) queue.add(each, 100);
    // Everything but the head and the tail settles, newest first: all holes behind a live head.
    for (let i = entries.length - 2; i >= 1; i--) queue.settle(entries[i] as DeadlineEntry);
    queue.settle(entries[0] as DeadlineEntry);
    vi.advanceTimersByTime(100);
    expect(expired).toEqual(['4999']);
    queue.close();
  });

  it('adds nothing and fires nothing after close', () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
    const queue = new DeadlineQueue();
    const expired: string[] = [];
    queue.add(entry('a', expired), 10);
    queue.close();
    queue.add(entry('b', expired), 10);
    vi.advanceTimersByTime(100);
    expect(expired).toEqual([]);
  });

  it('never holds the process open while no entry is pending', () => {
    // The package is runtime-neutral (no Node types); the test runs on Node.
    const node = globalThis as unknown as { process: { getActiveResourcesInfo(): string[] } };
    const timers = () =>
      node.process.getActiveResourcesInfo().filter((kind) => kind === 'Timeout').length;
    const before = timers();
    const queue = new DeadlineQueue();
    const pending = entry('a', []);
    queue.add(pending, 60_000);
    expect(timers()).toBe(before + 1);
    queue.settle(pending);
    expect(timers()).toBe(before);
    queue.add(pending, 60_000);
    expect(timers()).toBe(before + 1);
    queue.close();
    expect(timers()).toBe(before);
  });
});

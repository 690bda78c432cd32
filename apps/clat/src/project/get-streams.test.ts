import type { MountStatus, MountSummary } from '@clat/kernel';
import { describe, expect, it } from 'vitest';
import { waitForGetStreams } from './get-streams.js';

/** A status source whose servers' GET streams the test moves by hand. */
class Statuses {
  readonly servers: Pick<MountStatus, 'name' | 'state' | 'getStream'>[];
  readonly #listeners = new Set<() => void>();

  constructor(servers: Pick<MountStatus, 'name' | 'state' | 'getStream'>[]) {
    this.servers = servers;
  }

  summary(): MountSummary {
    return { servers: this.servers.map((server) => ({ ...server })) } as unknown as MountSummary;
  }

  onChange(listener: () => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  set(name: string, getStream: MountStatus['getStream']): void {
    const server = this.servers.find((candidate) => candidate.name === name);
    if (server !== undefined) server.getStream = getStream;
    for (const listener of this.#listeners) listener();
  }

  get listeners(): number {
    return this.#listeners.size;
  }
}

describe('waitForGetStreams', () => {
  it('returns at once when no connected server has a GET stream opening', async () => {
    const source = new Statuses([
      { name: 'a', state: 'connected', getStream: 'open' },
      { name: 'b', state: 'connected', getStream: undefined },
      // A failed server's last state does not hold the status back.
      { name: 'c', state: 'failed', getStream: 'opening' },
    ]);
    const started = Date.now();
    await waitForGetStreams(source, { ms: 10_000 });
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(source.listeners).toBe(0);
  });

  it('resolves when the last opening stream settles, and stops listening', async () => {
    const source = new Statuses([
      { name: 'a', state: 'connected', getStream: 'opening' },
      { name: 'b', state: 'connected', getStream: 'opening' },
    ]);
    let done = false;
    const waiting = waitForGetStreams(source, { ms: 10_000 }).then(() => {
      done = true;
    });
    source.set('a', 'open');
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(done).toBe(false);
    source.set('b', 'none');
    await waiting;
    expect(source.listeners).toBe(0);
  });

  it('gives up after its bound, leaving the state as it is', async () => {
    const source = new Statuses([{ name: 'a', state: 'connected', getStream: 'opening' }]);
    const started = Date.now();
    await waitForGetStreams(source, { ms: 150 });
    expect(Date.now() - started).toBeGreaterThanOrEqual(140);
    expect(source.summary().servers[0]?.getStream).toBe('opening');
    expect(source.listeners).toBe(0);
  });

  it('waits once for a server that never answers its GET, and again for a new one', async () => {
    const source = new Statuses([
      { name: 'hung', state: 'connected', getStream: 'opening' },
      { name: 'late', state: 'connected', getStream: 'open' },
    ]);
    const gaveUp = new Set<string>();
    await waitForGetStreams(source, { ms: 100, gaveUp });
    expect([...gaveUp]).toEqual(['hung']);

    // The next status does not wait for it again.
    let started = Date.now();
    await waitForGetStreams(source, { ms: 10_000, gaveUp });
    expect(Date.now() - started).toBeLessThan(1_000);

    // Another server's stream reopening is still waited for.
    source.set('late', 'opening');
    started = Date.now();
    const waiting = waitForGetStreams(source, { ms: 10_000, gaveUp });
    setTimeout(() => source.set('late', 'open'), 50);
    await waiting;
    expect(Date.now() - started).toBeGreaterThanOrEqual(40);
    expect([...gaveUp]).toEqual(['hung']);
  });
});

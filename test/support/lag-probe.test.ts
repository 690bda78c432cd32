/**
 * The lag probe the fault zoos assert with: a loop this process holds counts as its own lag,
 * whether it burns CPU or blocks. (That time spent waiting for a CPU does not is not tested here:
 * the scheduler favours a thread that wakes from sleep, so busy processes on every core delayed
 * this one's ticks by 1–40 ms, too little and too irregular for a test that cannot flake.)
 */
import { describe, expect, it } from 'vitest';
import { attributableLagMs, LagProbe, type LagReport } from './lag-probe.js';

const onLinux = process.platform === 'linux';

/** Lets the probe's 5 ms timer tick a few times. */
const ticks = () => new Promise((resolve) => setTimeout(resolve, 30));

describe('LagProbe', () => {
  it('counts a loop held on the CPU as the process own lag', async () => {
    const probe = new LagProbe();
    await ticks();
    const end = performance.now() + 80;
    while (performance.now() < end) {
      // Spinning: our code holds the loop.
    }
    await ticks();
    const lag = probe.stop();
    expect(lag.maxMs).toBeGreaterThan(60);
    expect(lag.onCpuMs).toBeGreaterThan(60);
    if (onLinux) expect(lag.ownMs).toBeGreaterThan(60);
  });

  it('counts a blocking call as the process own lag, though it burns no CPU', async () => {
    const probe = new LagProbe();
    await ticks();
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 80);
    await ticks();
    const lag = probe.stop();
    expect(lag.maxMs).toBeGreaterThan(60);
    expect(lag.onCpuMs).toBeLessThan(40);
    if (onLinux) expect(lag.ownMs).toBeGreaterThan(60);
    else expect(lag.ownMs).toBeUndefined();
  });

  it('answers for the lag less the wait for a CPU, else the wall clock on a machine not oversubscribed', () => {
    const report: LagReport = {
      maxMs: 58,
      p99Ms: 9,
      onCpuMs: 12,
      oversubscribed: false,
      ownMs: 14,
    };
    expect(attributableLagMs(report)).toBe(14);
    expect(attributableLagMs({ ...report, ownMs: undefined })).toBe(58);
    expect(
      attributableLagMs({ ...report, ownMs: undefined, oversubscribed: true }),
    ).toBeUndefined();
  });
});

/**
 * The lag probe the fault zoos assert with: a loop this process holds counts as its own lag,
 * whether it burns CPU or blocks, unless it was blocked while other tasks waited for a CPU (the
 * loop then waits on helper threads that wait for one). Waiting for a CPU is tested with numbers
 * (`attributeTick`), not with busy processes: the scheduler favours a thread that wakes from
 * sleep, so busy processes on every core delayed this one's ticks by 1–40 ms, too little and too
 * irregular for a test that cannot flake, and they held up the timing checks of the test files
 * running beside this one (a fault zoo's lag went over its bound).
 */
import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { attributeTick, LagProbe } from './lag-probe.js';

const onLinux = process.platform === 'linux';
const hasPressure = existsSync('/proc/pressure/cpu');

/** Milliseconds during which some task waited for a CPU, since boot (Linux PSI). */
function othersWaitedMs(): number {
  return (
    Number(/^some .*\btotal=(\d+)/m.exec(readFileSync('/proc/pressure/cpu', 'latin1'))?.[1]) / 1000
  );
}

const block = (ms: number) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);

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
    const pressure = hasPressure ? othersWaitedMs() : 0;
    block(80);
    const contended = hasPressure ? othersWaitedMs() - pressure : 0;
    await ticks();
    const lag = probe.stop();
    expect(lag.maxMs).toBeGreaterThan(60);
    expect(lag.onCpuMs).toBeLessThan(40);
    if (!onLinux) {
      expect(lag.ownMs).toBeUndefined();
      return;
    }
    // Other test files run beside this one: the block is excused only as far as other tasks
    // waited for a CPU meanwhile, and in full while they did not.
    // (The probe's tick spans the block and a few ms either side, hence the margins.)
    const report = JSON.stringify({ ...lag, contended });
    if (contended < 10) expect(lag.ownMs, report).toBeGreaterThan(50);
    expect((lag.ownMs ?? 0) + lag.contendedMs, report).toBeGreaterThan(60);
    expect(lag.contendedMs, report).toBeLessThanOrEqual(contended + 15);
  });

  it('excuses blocked time only as far as other tasks waited for a CPU, and never CPU time', () => {
    // Blocked 45 ms of a 56 ms tick (CI: the loop joined helper threads that waited for a core).
    const tick = { lateMs: 56, onCpuMs: 11, waitedMs: 0 };
    expect(attributeTick({ ...tick, someWaitedMs: 0 })).toEqual({ ownMs: 56, excusedMs: 0 });
    expect(attributeTick({ ...tick, someWaitedMs: 20 })).toEqual({ ownMs: 36, excusedMs: 20 });
    expect(attributeTick({ ...tick, someWaitedMs: 90 })).toEqual({ ownMs: 11, excusedMs: 45 });
    // The thread's own wait is not counted twice: it is in "some" too.
    expect(attributeTick({ lateMs: 60, onCpuMs: 10, waitedMs: 20, someWaitedMs: 25 })).toEqual({
      ownMs: 35,
      excusedMs: 5,
    });
    // A loop held on the CPU stays ours however busy the machine is.
    expect(attributeTick({ lateMs: 60, onCpuMs: 58, waitedMs: 0, someWaitedMs: 500 })).toEqual({
      ownMs: 58,
      excusedMs: 2,
    });
  });
});

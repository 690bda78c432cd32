/**
 * Event-loop lag of the host process, measured three ways: `monitorEventLoopDelay` (wall clock,
 * the reported figure); per timer tick, the CPU time this process burned while the tick was late;
 * and, on Linux, per timer tick, how late it was less the time the main thread spent waiting for
 * a CPU (`/proc/thread-self/schedstat`). On an oversubscribed machine a late tick with little CPU
 * means we were descheduled, not blocked; a late tick full of CPU means our own code held the
 * loop. The load average alone misses short bursts of other processes (a server spawning its
 * children on 2 cores: 58 ms of wall-clock lag with the 1-minute load under 2, in CI).
 * @module
 */
import { readFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { type IntervalHistogram, monitorEventLoopDelay } from 'node:perf_hooks';

/** The histogram records whole timer intervals, so lag = sample - resolution. */
const RESOLUTION_MS = 5;

export interface LagReport {
  /** Wall-clock lag, from monitorEventLoopDelay. */
  maxMs: number;
  p99Ms: number;
  /** CPU time this process used inside its worst late tick: the part of the lag it caused. */
  onCpuMs: number;
  /** True when runnable work exceeded the cores during the window (wall lag then includes waiting). */
  oversubscribed: boolean;
  /**
   * The latest tick less the time the main thread waited for a CPU meanwhile: the wall-clock lag
   * this process caused (its code, a collection, a blocking call). Undefined without schedstat.
   */
  ownMs: number | undefined;
}

/** Nanoseconds the calling thread has waited on a run queue, or undefined (not Linux). */
function runQueueWaitNs(): number | undefined {
  try {
    const wait = Number(readFileSync('/proc/thread-self/schedstat', 'latin1').split(' ')[1]);
    return Number.isFinite(wait) ? wait : undefined;
  } catch {
    return undefined;
  }
}

export class LagProbe {
  readonly #histogram: IntervalHistogram = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
  readonly #timer: NodeJS.Timeout;
  #lastWall = performance.now();
  #lastCpu = process.cpuUsage();
  #onCpuMs = 0;
  #maxLoad = loadavg()[0] ?? 0;
  // The timer runs on the main thread, so thread-self is the thread whose lag this is.
  #lastWait = runQueueWaitNs();
  #ownMs = 0;

  constructor() {
    this.#histogram.enable();
    this.#timer = setInterval(() => {
      const wall = performance.now();
      const cpu = process.cpuUsage(this.#lastCpu);
      const wait = this.#lastWait === undefined ? undefined : runQueueWaitNs();
      const late = wall - this.#lastWall - RESOLUTION_MS;
      if (late > 0) {
        this.#onCpuMs = Math.max(this.#onCpuMs, Math.min(late, (cpu.user + cpu.system) / 1000));
        const waited =
          wait === undefined || this.#lastWait === undefined ? 0 : (wait - this.#lastWait) / 1e6;
        this.#ownMs = Math.max(this.#ownMs, late - waited);
      }
      this.#lastWall = wall;
      this.#lastCpu = process.cpuUsage();
      this.#lastWait = wait;
      this.#maxLoad = Math.max(this.#maxLoad, loadavg()[0] ?? 0);
    }, RESOLUTION_MS);
  }

  stop(): LagReport {
    clearInterval(this.#timer);
    this.#histogram.disable();
    return {
      maxMs: Math.max(0, this.#histogram.max / 1e6 - RESOLUTION_MS),
      p99Ms: Math.max(0, this.#histogram.percentile(99) / 1e6 - RESOLUTION_MS),
      onCpuMs: this.#onCpuMs,
      oversubscribed: this.#maxLoad > cpus().length,
      ownMs: this.#lastWait === undefined ? undefined : this.#ownMs,
    };
  }
}

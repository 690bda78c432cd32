/**
 * Event-loop lag of the host process, measured two ways: `monitorEventLoopDelay` (wall clock, the
 * reported figure) and, per timer tick, the CPU time this process burned while the tick was late.
 * On an oversubscribed machine a late tick with little CPU means we were descheduled, not blocked;
 * a late tick full of CPU means our own code held the loop.
 * @module
 */
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
}

export class LagProbe {
  readonly #histogram: IntervalHistogram = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
  readonly #timer: NodeJS.Timeout;
  #lastWall = performance.now();
  #lastCpu = process.cpuUsage();
  #onCpuMs = 0;
  #maxLoad = loadavg()[0] ?? 0;

  constructor() {
    this.#histogram.enable();
    this.#timer = setInterval(() => {
      const wall = performance.now();
      const cpu = process.cpuUsage(this.#lastCpu);
      const late = wall - this.#lastWall - RESOLUTION_MS;
      if (late > 0)
        this.#onCpuMs = Math.max(this.#onCpuMs, Math.min(late, (cpu.user + cpu.system) / 1000));
      this.#lastWall = wall;
      this.#lastCpu = process.cpuUsage();
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
    };
  }
}

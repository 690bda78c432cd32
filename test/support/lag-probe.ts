/**
 * Event-loop lag of the host process, measured three ways: `monitorEventLoopDelay` (wall clock,
 * the reported figure); per timer tick, the CPU time burned while the tick was late (on Linux the
 * main thread's, from `/proc/thread-self/schedstat`; elsewhere the process's); and, on Linux, per
 * timer tick, how late it was less the time the main thread spent waiting for a CPU. On an
 * oversubscribed machine a late tick with little CPU means we were descheduled, not blocked; a
 * late tick full of CPU means our own code held the loop. The load average alone misses short
 * bursts of other processes (a server spawning its children on 2 cores: 58 ms of wall-clock lag
 * with the 1-minute load under 2, in CI), and the process's CPU time counts helper threads that
 * run beside the loop (51 ms "held" in a 51 ms tick whose main thread waited 9 ms for a CPU).
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
  /**
   * CPU time inside its worst late tick: the part of the lag our code caused. On Linux the main
   * thread's alone (the loop's thread: helper threads, such as the collector's, run beside it);
   * elsewhere the whole process's.
   */
  onCpuMs: number;
  /** True when runnable work exceeded the cores during the window (wall lag then includes waiting). */
  oversubscribed: boolean;
  /**
   * The latest tick less the time the main thread waited for a CPU meanwhile: the wall-clock lag
   * this process caused (its code, a collection, a blocking call). Undefined without schedstat.
   */
  ownMs: number | undefined;
}

/**
 * The calling thread's scheduler times in nanoseconds: on a CPU, and waiting on a run queue;
 * undefined without `/proc/thread-self/schedstat` (not Linux).
 */
function threadTimesNs(): { cpu: number; wait: number } | undefined {
  try {
    const [cpu, wait] = readFileSync('/proc/thread-self/schedstat', 'latin1')
      .split(' ')
      .map(Number);
    return Number.isFinite(cpu) && Number.isFinite(wait)
      ? { cpu: cpu as number, wait: wait as number }
      : undefined;
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
  #lastThread = threadTimesNs();
  #ownMs = 0;

  constructor() {
    this.#histogram.enable();
    this.#timer = setInterval(() => {
      const wall = performance.now();
      const cpu = process.cpuUsage(this.#lastCpu);
      const before = this.#lastThread;
      const thread = before === undefined ? undefined : threadTimesNs();
      const late = wall - this.#lastWall - RESOLUTION_MS;
      if (late > 0) {
        // The main thread's times where schedstat has them; else the process's CPU, no wait.
        const [onCpu, waited] =
          before === undefined || thread === undefined
            ? [(cpu.user + cpu.system) / 1000, 0]
            : [(thread.cpu - before.cpu) / 1e6, (thread.wait - before.wait) / 1e6];
        this.#onCpuMs = Math.max(this.#onCpuMs, Math.min(late, onCpu));
        this.#ownMs = Math.max(this.#ownMs, late - waited);
      }
      this.#lastWall = wall;
      this.#lastCpu = process.cpuUsage();
      this.#lastThread = thread;
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
      ownMs: this.#lastThread === undefined ? undefined : this.#ownMs,
    };
  }
}

/**
 * The wall-clock lag this process answers for: `ownMs` where schedstat tells it; elsewhere the
 * wall-clock lag unless other processes oversubscribed the cores (undefined then: it cannot be
 * told from waiting for a CPU).
 */
export function attributableLagMs(report: LagReport): number | undefined {
  if (report.ownMs !== undefined) return report.ownMs;
  return report.oversubscribed ? undefined : report.maxMs;
}

/** One line of a fault zoo's lag report, its name padded to `width`. */
export function lagReportLine(name: string, width: number, report: LagReport): string {
  const own = report.ownMs === undefined ? '' : `  own ${report.ownMs.toFixed(1)} ms`;
  const busy = report.oversubscribed ? '  (cores oversubscribed)' : '';
  return `  ${name.padEnd(width)} max ${report.maxMs.toFixed(1)} ms  p99 ${report.p99Ms.toFixed(1)} ms  on-CPU ${report.onCpuMs.toFixed(1)} ms${own}${busy}`;
}

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
 *
 * The main thread can also be late while neither running nor waiting for a CPU: blocked. That is
 * our lag when our code blocks (a synchronous call), but not when the loop waits on a helper
 * thread that itself waits for a CPU (V8's collector joins its helpers): in CI, with the cores
 * oversubscribed, a 56 ms tick showed 11 ms on the CPU, no wait for one, and 45 ms blocked. So
 * on Linux the blocked part of a tick is excused up to the time other tasks waited for a CPU
 * meanwhile (`/proc/pressure/cpu`, "some", less the main thread's own wait; the kernel averages it
 * over the cores, so it excuses at most that share): on a machine with a core to spare that is
 * about nothing, and a blocking call counts in full.
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
   * The latest tick less the time the main thread waited for a CPU meanwhile, and less the time it
   * was blocked while other tasks waited for one (`contendedMs`): the wall-clock lag this process
   * caused (its code, a collection, a blocking call). Undefined without schedstat.
   */
  ownMs: number | undefined;
  /** The most blocked time one tick was excused for other tasks' wait for a CPU (0 without PSI). */
  contendedMs: number;
}

/**
 * Microseconds, since boot, during which some task waited for a CPU, averaged over the cores
 * (`/proc/pressure/cpu`, the "some" line's total); undefined without pressure stall information.
 */
function cpuPressureUs(): number | undefined {
  try {
    const total = /^some .*\btotal=(\d+)/m.exec(readFileSync('/proc/pressure/cpu', 'latin1'))?.[1];
    return total === undefined ? undefined : Number(total);
  } catch {
    return undefined;
  }
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

/** What happened to the main thread during one late tick, in milliseconds. */
export interface TickTimes {
  /** How late the tick was. */
  lateMs: number;
  /** The main thread's time on a CPU meanwhile. */
  onCpuMs: number;
  /** The main thread's time waiting for a CPU meanwhile. */
  waitedMs: number;
  /** How long some task (this thread included) waited for a CPU meanwhile, averaged over cores. */
  someWaitedMs: number;
}

/**
 * The part of a late tick this process answers for: the lateness less the main thread's wait for
 * a CPU, less the time it was blocked (neither running nor waiting) while other tasks waited for
 * a CPU (`excusedMs`). Time on the CPU is never excused.
 */
export function attributeTick(tick: TickTimes): { ownMs: number; excusedMs: number } {
  const blocked = Math.max(0, tick.lateMs - tick.waitedMs - tick.onCpuMs);
  const othersWaited = Math.max(0, tick.someWaitedMs - tick.waitedMs);
  const excusedMs = Math.min(blocked, othersWaited);
  return { ownMs: tick.lateMs - tick.waitedMs - excusedMs, excusedMs };
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
  #lastPressure = cpuPressureUs();
  #ownMs = 0;
  #contendedMs = 0;

  constructor() {
    this.#histogram.enable();
    this.#timer = setInterval(() => {
      const wall = performance.now();
      const cpu = process.cpuUsage(this.#lastCpu);
      const before = this.#lastThread;
      const thread = before === undefined ? undefined : threadTimesNs();
      const pressureBefore = this.#lastPressure;
      const pressure = pressureBefore === undefined ? undefined : cpuPressureUs();
      const late = wall - this.#lastWall - RESOLUTION_MS;
      if (late > 0) {
        // The main thread's times where schedstat has them; else the process's CPU, no wait.
        const [onCpu, waited] =
          before === undefined || thread === undefined
            ? [(cpu.user + cpu.system) / 1000, 0]
            : [(thread.cpu - before.cpu) / 1e6, (thread.wait - before.wait) / 1e6];
        this.#onCpuMs = Math.max(this.#onCpuMs, Math.min(late, onCpu));
        const tick = attributeTick({
          lateMs: late,
          onCpuMs: onCpu,
          waitedMs: waited,
          someWaitedMs:
            pressureBefore === undefined || pressure === undefined
              ? 0
              : (pressure - pressureBefore) / 1000,
        });
        this.#contendedMs = Math.max(this.#contendedMs, tick.excusedMs);
        this.#ownMs = Math.max(this.#ownMs, tick.ownMs);
      }
      this.#lastWall = wall;
      this.#lastCpu = process.cpuUsage();
      this.#lastThread = thread;
      this.#lastPressure = pressure;
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
      contendedMs: this.#contendedMs,
    };
  }
}

/** One line of a fault zoo's lag report, its name padded to `width`. */
export function lagReportLine(name: string, width: number, report: LagReport): string {
  const own = report.ownMs === undefined ? '' : `  own ${report.ownMs.toFixed(1)} ms`;
  const contended =
    // Only an excuse the line's one decimal shows.
    report.contendedMs >= 0.05
      ? ` (${report.contendedMs.toFixed(1)} ms blocked while others waited)`
      : '';
  const busy = report.oversubscribed ? '  (cores oversubscribed)' : '';
  return `  ${name.padEnd(width)} max ${report.maxMs.toFixed(1)} ms  p99 ${report.p99Ms.toFixed(1)} ms  on-CPU ${report.onCpuMs.toFixed(1)} ms${own}${contended}${busy}`;
}

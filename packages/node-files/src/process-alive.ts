/**
 * Whether a lock's holder still runs: the one liveness test of CLAT's lock files (this package's
 * `withFileLock` and the plugin store's lease).
 * @module
 */
import { readFileSync } from 'node:fs';

/** Clock ticks per second of `/proc/<pid>/stat` times: USER_HZ, 100 on Linux's architectures. */
const USER_HZ = 100;
/** `/proc/stat`'s boot time has whole seconds; a start this much after a lock is a new process. */
const START_SLACK_MS = 2_000;

/** Whether process `pid` still runs on this machine (EPERM: it runs, as another user). */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** When process `pid` started (ms since the epoch), from `/proc`; undefined elsewhere or unknown. */
export function processStartedAt(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (2nd field) may hold spaces and parentheses: count from the last ")".
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticks = Number(fields[19]);
    const boot = /^btime (\d+)$/m.exec(readFileSync('/proc/stat', 'utf8'))?.[1];
    if (!Number.isFinite(ticks) || boot === undefined) return undefined;
    return Number(boot) * 1000 + (ticks * 1000) / USER_HZ;
  } catch {
    return undefined;
  }
}

/**
 * Whether the holder `pid` of a lock written at `writtenMs` (its mtime) still holds it: it runs,
 * and it is not a newer process that only got the same pid (a container restarted, pids wrapped
 * around), which started after the lock was written. Where start times are unknown, running is
 * enough.
 */
export function lockHolderAlive(pid: number, writtenMs: number): boolean {
  if (!processAlive(pid)) return false;
  const started = processStartedAt(pid);
  return started === undefined || started <= writtenMs + START_SLACK_MS;
}

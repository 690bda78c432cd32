/**
 * Whether a lock's holder still runs: the one liveness test of CLAT's lock files (this package's
 * `withFileLock` and the plugin store's lease).
 * @module
 */

/** Whether process `pid` still runs on this machine (EPERM: it runs, as another user). */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

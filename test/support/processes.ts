/**
 * Process liveness for tests. A zombie counts as gone: a container's init may never reap a
 * reparented child, and `kill(pid, 0)` alone would report such a finished process as running.
 * @module
 */
import { readFileSync } from 'node:fs';

/** True while `pid` runs (a zombie counts as gone). */
export function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return process.platform !== 'linux';
  }
}

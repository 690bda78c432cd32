/**
 * Groups a host still owns, SIGKILLed if it exits without tearing them down (an uncaught error,
 * `process.exit`), so no server or command outlives it. One set per process, shared by every
 * package that spawns.
 * @module
 */
import { signalGroup } from './process-group.js';

const liveGroups = new Set<number>();
let exitHookInstalled = false;

/** SIGKILLs every tracked group and forgets them (what the exit hook does). */
export function killTrackedGroups(): void {
  for (const pgid of liveGroups) signalGroup(pgid, 'SIGKILL');
  liveGroups.clear();
}

/** Tracks a spawned group so an abrupt host exit still kills it. */
export function trackGroup(pgid: number): void {
  liveGroups.add(pgid);
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    process.once('exit', killTrackedGroups);
  }
}

/** Forgets a group its owner has emptied. */
export function untrackGroup(pgid: number): void {
  liveGroups.delete(pgid);
}

/** How many groups are tracked. */
export function trackedGroupCount(): number {
  return liveGroups.size;
}

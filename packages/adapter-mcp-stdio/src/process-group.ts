/**
 * Process-group signalling and liveness for stdio servers spawned as group leaders (detached), so
 * teardown reaches grandchildren. Zombies do not count as alive: the container init may never reap
 * reparented grandchildren, and a zombie holds no resources we can free.
 * @module
 */
import { readdirSync, readFileSync } from 'node:fs';

/** How often teardown looks whether a process group is empty. */
const GROUP_POLL_MS = 25;

/**
 * Sends `signal` to every process of group `pgid`; false only if the group is gone (ESRCH).
 * EPERM means the group exists but is not ours to signal: it is alive, as native-tools reads it.
 */
export function signalGroup(pgid: number, signal: NodeJS.Signals | 0): boolean {
  try {
    process.kill(-pgid, signal);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Live (non-zombie) members of process group `pgid`. Linux reads /proc; elsewhere kill(0). */
export function groupMembers(pgid: number): number[] {
  if (!signalGroup(pgid, 0)) return [];
  if (process.platform !== 'linux') return [pgid];
  const members: number[] = [];
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return [pgid];
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue; // exited while we looked
    }
    // Fields after the parenthesised command: state ppid pgrp …
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (Number(fields[2]) === pgid && fields[0] !== 'Z' && fields[0] !== 'X') {
      members.push(Number(entry));
    }
  }
  return members;
}

/** True while group `pgid` has a live member. */
export function groupAlive(pgid: number): boolean {
  return groupMembers(pgid).length > 0;
}

// Groups still owned by an open transport; killed if the host exits without closing them.
const liveGroups = new Set<number>();
let exitHookInstalled = false;

/** Tracks a spawned group so an abrupt host exit still kills it. */
export function trackGroup(pgid: number): void {
  liveGroups.add(pgid);
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    process.once('exit', () => {
      for (const group of liveGroups) signalGroup(group, 'SIGKILL');
    });
  }
}

export function untrackGroup(pgid: number): void {
  liveGroups.delete(pgid);
}

/** Resolves true once group `pgid` has no live member, false after `ms`. */
export function waitGroupGone(pgid: number, ms: number): Promise<boolean> {
  return new Promise((resolveWait) => {
    const deadline = Date.now() + ms;
    const poll = () => {
      if (!groupAlive(pgid)) resolveWait(true);
      else if (Date.now() >= deadline) resolveWait(false);
      else setTimeout(poll, GROUP_POLL_MS);
    };
    poll();
  });
}

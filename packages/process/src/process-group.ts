/**
 * Signalling and liveness of a process group (a child spawned `detached` is its group leader).
 * Zombies do not count as alive: a container init may never reap reparented grandchildren, and a
 * zombie holds nothing we can free, so waiting on one would only hold the caller.
 * @module
 */
import { readdirSync, readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';

/** How often a wait looks whether a group is empty. */
const GROUP_POLL_MS = 20;

/**
 * How long a SIGKILLed group may take to empty before a kill gives up on it. No process can
 * refuse SIGKILL, but on a loaded machine it runs its exit only when it next gets a CPU: a short
 * grace must not report a group that is dying as one that survived. Ends as soon as it is gone.
 */
const KILL_SETTLE_MS = 2000;

/**
 * Sends `signal` (0: only probe) to every process of group `pgid`; false only when the group is
 * gone (ESRCH). EPERM means the group exists but is not ours to signal: it counts as alive.
 */
export function signalGroup(pgid: number, signal: NodeJS.Signals | 0): boolean {
  try {
    process.kill(-pgid, signal);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The state letter of a /proc/<pid>/stat line (after the parenthesised command). */
function stateOf(stat: string): string {
  return stat.charAt(stat.lastIndexOf(')') + 2);
}

/**
 * True while process `pid` runs: it answers the probe and, on Linux, is not a zombie (a killed
 * process that nobody reaped holds nothing and runs nothing). Elsewhere the probe decides.
 */
export function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  if (process.platform !== 'linux') return true;
  try {
    const state = stateOf(readFileSync(`/proc/${pid}/stat`, 'utf8'));
    return state !== 'Z' && state !== 'X';
  } catch {
    return false; // gone between the probe and the read
  }
}

/** Whether a /proc/<pid>/stat line is of a live (non-zombie) member of group `pgid`. */
function liveMemberOf(stat: string, pgid: number): boolean {
  // Fields after the parenthesised command: state ppid pgrp …
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return Number(fields[2]) === pgid && fields[0] !== 'Z' && fields[0] !== 'X';
}

/**
 * Live (non-zombie) members of group `pgid`. Linux reads /proc; elsewhere (or without /proc) a
 * group that answers the probe is reported as its leader alone.
 */
export function groupMembers(pgid: number): number[] {
  if (!signalGroup(pgid, 0)) return [];
  if (process.platform !== 'linux') return [pgid];
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return [pgid];
  }
  const members: number[] = [];
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue; // exited while we looked
    }
    if (liveMemberOf(stat, pgid)) members.push(Number(entry));
  }
  return members;
}

/** True while group `pgid` has a live member. */
export function groupAlive(pgid: number): boolean {
  return groupMembers(pgid).length > 0;
}

/** `/proc` files read at once by {@link scanProcesses} (each read is one thread-pool job). */
const SCAN_CONCURRENCY = 8;

/**
 * The pids (this process's own left out) for which `test` resolves true, in ascending order;
 * undefined where there is no `/proc` to list (not Linux, or not mounted). Tests run a few at a
 * time, for `/proc` reads on the thread pool: a read of another process's files can block while
 * that process exits or remaps (11 ms for a stat, 17 ms for an environ, measured beside an exiting
 * 1.5 GB process on 2 cores), a scan reads every process on the machine, and teardown scans
 * often: done synchronously, such reads held the event loop of a host that serves other servers
 * meanwhile (the stdio fault zoo's lag probe caught 59 ms in CI). With `first`, the scan stops at
 * the first match. `test` must not throw (a process may exit while it is read).
 */
export async function scanProcesses(
  test: (pid: number) => Promise<boolean>,
  options: { first?: boolean } = {},
): Promise<number[] | undefined> {
  if (process.platform !== 'linux') return undefined;
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return undefined;
  }
  const pids = entries.map(Number).filter((pid) => Number.isInteger(pid) && pid !== process.pid);
  const found: number[] = [];
  const first = options.first === true;
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < pids.length && !(first && found.length > 0)) {
      const pid = pids[next++] as number;
      if (await test(pid)) found.push(pid);
    }
  };
  await Promise.all(Array.from({ length: Math.min(SCAN_CONCURRENCY, pids.length) }, worker));
  return found.sort((a, b) => a - b);
}

/**
 * {@link groupAlive} for the waits (every {@link GROUP_POLL_MS}), with the `/proc` reads off the
 * event loop ({@link scanProcesses}).
 */
async function groupAliveAsync(pgid: number): Promise<boolean> {
  if (!signalGroup(pgid, 0)) return false;
  const members = await scanProcesses(
    async (pid) => {
      // Undefined when it exited while we looked.
      const stat = await readFile(`/proc/${pid}/stat`, 'latin1').catch(() => undefined);
      return stat !== undefined && liveMemberOf(stat, pgid);
    },
    { first: true },
  );
  // The group answered the probe: without /proc it counts as alive.
  return members === undefined || members.length > 0;
}

/** Resolves true once group `pgid` has no live member, false after `ms`. */
export function waitGroupGone(pgid: number, ms: number): Promise<boolean> {
  return new Promise((resolveWait) => {
    const deadline = Date.now() + ms;
    const poll = () => {
      void groupAliveAsync(pgid).then((alive) => {
        if (!alive) resolveWait(true);
        else if (Date.now() >= deadline) resolveWait(false);
        else setTimeout(poll, GROUP_POLL_MS);
      });
    };
    poll();
  });
}

/**
 * SIGTERMs group `pgid`, waits up to `graceMs` for it to empty, then SIGKILLs it and waits up to
 * `graceMs` again, and at least {@link KILL_SETTLE_MS}. True when the group is gone.
 */
export async function killGroup(pgid: number, graceMs: number): Promise<boolean> {
  if (!(await groupAliveAsync(pgid))) return true;
  signalGroup(pgid, 'SIGTERM');
  if (await waitGroupGone(pgid, graceMs)) return true;
  signalGroup(pgid, 'SIGKILL');
  return waitGroupGone(pgid, Math.max(graceMs, KILL_SETTLE_MS));
}

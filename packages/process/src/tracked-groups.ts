/**
 * Groups a host still owns, SIGKILLed if it exits without tearing them down (an uncaught error,
 * `process.exit`), so no server or command outlives it, together with the processes that left
 * them (`setsid()` daemons, found by their owner's environment tag). One set per process, shared
 * by every package that spawns.
 * @module
 */
import { killTaggedSync } from './exit-sweep.js';
import { signalGroup } from './process-group.js';

/**
 * One set per process even when this module is bundled more than once (`clat`'s early boot
 * bundle prestarts servers, its main bundle starts the rest): the copies share it through a
 * global symbol, so one hook kills every group and one signal handler decides.
 */
interface Tracked {
  groups: Set<number>;
  hooked: boolean;
  /** Sweeps an ending signal waits for (bounded): processes that left their groups. */
  endings?: Set<() => Promise<unknown>>;
  /** Set once an ending signal is being handled: the host is going, nothing new may start. */
  ending?: boolean;
  /**
   * The environment entries (`NAME=value`) of the owners whose sweeps are in `endings`: at
   * `exit`, which runs no asynchronous sweep, the processes carrying them are killed.
   */
  exitTags?: Map<() => Promise<unknown>, string>;
}
const TRACKED = Symbol.for('@clat/process.trackedGroups');
const shared = globalThis as { [TRACKED]?: Tracked };
const tracked: Tracked = shared[TRACKED] ?? { groups: new Set(), hooked: false };
shared[TRACKED] = tracked;
// A copy bundled before `endings` existed shares the object: add the set to it.
tracked.endings ??= new Set();
tracked.exitTags ??= new Map();
const liveGroups = tracked.groups;
const endings = tracked.endings;
const exitTags = tracked.exitTags;

/** How long an ending signal waits for the sweeps before the host ends by it. */
const ENDING_SWEEPS_MS = 1_500;

/** SIGKILLs every tracked group and forgets them (what the exit hook does). */
export function killTrackedGroups(): void {
  for (const pgid of liveGroups) signalGroup(pgid, 'SIGKILL');
  liveGroups.clear();
}

/**
 * The exit hook: any exit (an uncaught error, `process.exit`, a crash on a closed terminal) kills
 * the tracked groups and the daemons that left them, as an ending signal's sweeps would.
 */
function onExit(): void {
  killTrackedGroups();
  killTaggedSync(exitTags.values());
}

/** Signals that end a process without its `exit` event (the groups' own session ignores them). */
const ENDING_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

/**
 * Takes a terminal out of raw mode: a line editor (the interactive session) puts it there, and a
 * signal's default action ends the process before the editor is closed, leaving the person's
 * shell with no echo (`kill <clat>`, a closing IDE terminal).
 */
function restoreTerminal(): void {
  const stdin = process.stdin as {
    isTTY?: boolean;
    isRaw?: boolean;
    setRawMode?: (raw: boolean) => void;
  };
  if (stdin.isTTY === true && stdin.isRaw === true) stdin.setRawMode?.(false);
}

/**
 * A signal nobody else handles would end the host without `exit` (Ctrl-C during a `clat tools`):
 * the groups, in sessions of their own, never see it, and a server that ignores its closed stdin
 * would outlive the host. Kills them, then lets the signal end the host as it would have. A
 * command that handles the signal itself (cancels its run, then tears down) is left to do so.
 */
function onEndingSignal(signal: NodeJS.Signals): void {
  if (process.listenerCount(signal) > 1) return;
  tracked.ending = true;
  killTrackedGroups();
  process.removeListener(signal, onEndingSignal);
  // While the sweeps run the host's code goes on (a connect whose server just died may start
  // another): whatever it tracked meanwhile goes too.
  const end = () => {
    killTrackedGroups();
    restoreTerminal();
    process.kill(process.pid, signal);
  };
  const sweeps = [...endings];
  endings.clear();
  if (sweeps.length === 0) {
    end();
    return;
  }
  // Daemons that left their group (setsid) are only found by a sweep, which reads /proc: wait
  // for it, bounded, then end by the signal as before. A second signal ends the host at once.
  const timer = setTimeout(end, ENDING_SWEEPS_MS);
  void Promise.allSettled(sweeps.map((sweep) => sweep())).then(() => {
    clearTimeout(timer);
    end();
  });
}

function hook(): void {
  if (tracked.hooked) return;
  tracked.hooked = true;
  process.once('exit', onExit);
  for (const signal of ENDING_SIGNALS) process.on(signal, onEndingSignal);
}

/** Tracks a spawned group so an abrupt host exit (or an unhandled Ctrl-C) still kills it. */
export function trackGroup(pgid: number): void {
  // Started after an ending signal (a fallback spawn while the sweeps run): killed at once,
  // before it can start anything the sweeps would have to find.
  if (tracked.ending === true) {
    signalGroup(pgid, 'SIGKILL');
    return;
  }
  liveGroups.add(pgid);
  hook();
}

/**
 * Runs `sweep` when a signal nobody handles ends the host, after the tracked groups are killed
 * and before the host ends (at most {@link ENDING_SWEEPS_MS}): for what a group kill cannot
 * reach, such as a server's `setsid()` daemons, found by their environment tag. At any other
 * exit, where no asynchronous code runs, the processes whose environment holds `tag` (the
 * `NAME=value` entry the sweep looks for) are killed instead. The returned function removes both
 * (at the owner's own teardown, which sweeps itself).
 */
export function onHostEnding(sweep: () => Promise<unknown>, tag?: string): () => void {
  endings.add(sweep);
  if (tag !== undefined) exitTags.set(sweep, tag);
  hook();
  return () => {
    endings.delete(sweep);
    exitTags.delete(sweep);
  };
}

/** Forgets a group its owner has emptied. */
export function untrackGroup(pgid: number): void {
  liveGroups.delete(pgid);
}

/** How many groups are tracked. */
export function trackedGroupCount(): number {
  return liveGroups.size;
}

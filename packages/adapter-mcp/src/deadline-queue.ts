/**
 * Request deadlines without a timer per request: entries with the same duration expire in the
 * order they were added, so each duration keeps one queue and one timer armed for its oldest
 * entry. Adding is an array push; settling marks the entry and pops finished heads.
 * @module
 */

/** What the queue tracks; a pending request implements it, so adding allocates nothing. */
export interface DeadlineEntry {
  /** Set by the queue: monotonic time (ms) the entry expires at. */
  deadlineAt: number;
  /** Set by the queue: the duration lane holding the entry, or -1 when it holds none. */
  deadlineLane: number;
  /** Set by the queue: the entry's slot in its lane. */
  deadlineSlot: number;
  /** Called once when the deadline passes before `settle()`. */
  expire(): void;
}

interface Lane {
  readonly ms: number;
  items: (DeadlineEntry | undefined)[];
  head: number;
  /** Settled entries still in `items` behind a live head. */
  holes: number;
  timer: Timer | undefined;
}

/** Holes tolerated before a lane is compacted (and only when they outnumber live entries). */
const COMPACT_AFTER = 64;
/** A timer that fires this close to a deadline counts it as passed (timer granularity). */
const SLACK_MS = 1;

const now = (): number => performance.now();

/** Node timers can stop holding the process open; other runtimes' timers have no such switch. */
type Timer = ReturnType<typeof setTimeout> & { ref?(): unknown; unref?(): unknown };

export class DeadlineQueue {
  readonly #lanes = new Map<number, Lane>();
  #closed = false;

  /** Starts `entry`'s deadline `ms` from now. An entry is in at most one lane at a time. */
  add(entry: DeadlineEntry, ms: number): void {
    if (this.#closed) return;
    let lane = this.#lanes.get(ms);
    if (lane === undefined) {
      lane = { ms, items: [], head: 0, holes: 0, timer: undefined };
      this.#lanes.set(ms, lane);
    }
    entry.deadlineAt = now() + ms;
    entry.deadlineLane = ms;
    entry.deadlineSlot = lane.items.length;
    lane.items.push(entry);
    if (lane.timer === undefined) {
      const armed = lane;
      lane.timer = setTimeout(() => this.#fire(armed), ms);
    } else {
      // An idle lane's timer is unreferenced so it never holds the process open; a live entry
      // holds it again, as a timer of its own would.
      lane.timer.ref?.();
    }
  }

  /** Stops `entry`'s deadline; harmless when it has none or already expired. */
  settle(entry: DeadlineEntry): void {
    const lane = entry.deadlineLane === -1 ? undefined : this.#lanes.get(entry.deadlineLane);
    entry.deadlineLane = -1;
    if (lane === undefined) return;
    const { items } = lane;
    const slot = entry.deadlineSlot;
    if (items[slot] !== entry) return;
    items[slot] = undefined;
    if (slot === lane.head) {
      this.#popHoles(lane);
      return;
    }
    lane.holes++;
    if (lane.holes > COMPACT_AFTER && lane.holes * 2 > items.length - lane.head) {
      const live: DeadlineEntry[] = [];
      for (let i = lane.head; i < items.length; i++) {
        const item = items[i];
        if (item === undefined) continue;
        item.deadlineSlot = live.length;
        live.push(item);
      }
      lane.items = live;
      lane.head = 0;
      lane.holes = 0;
    }
  }

  /** Drops every deadline and timer; later `add` calls are ignored. */
  close(): void {
    this.#closed = true;
    for (const lane of this.#lanes.values()) {
      clearTimeout(lane.timer);
      for (let i = lane.head; i < lane.items.length; i++) {
        const item = lane.items[i];
        if (item !== undefined) item.deadlineLane = -1;
      }
    }
    this.#lanes.clear();
  }

  /** Pops settled entries off the head; an emptied lane keeps its timer, unreferenced. */
  #popHoles(lane: Lane): void {
    const { items } = lane;
    while (lane.head < items.length && items[lane.head] === undefined) {
      lane.head++;
      if (lane.holes > 0 && lane.head < items.length && items[lane.head] === undefined) {
        lane.holes--;
      }
    }
    if (lane.head === items.length) {
      // Emptied in place: sequential requests reuse one array instead of growing a new one.
      items.length = 0;
      lane.head = 0;
      lane.holes = 0;
      lane.timer?.unref?.();
    }
  }

  #fire(lane: Lane): void {
    lane.timer = undefined;
    if (this.#closed) return;
    const passed = now() + SLACK_MS;
    const due: DeadlineEntry[] = [];
    while (lane.head < lane.items.length) {
      const item = lane.items[lane.head];
      if (item === undefined) {
        lane.head++;
        if (lane.holes > 0) lane.holes--;
        continue;
      }
      if (item.deadlineAt > passed) break;
      lane.items[lane.head] = undefined;
      lane.head++;
      item.deadlineLane = -1;
      due.push(item);
    }
    if (lane.head === lane.items.length) {
      lane.items.length = 0;
      lane.head = 0;
      lane.holes = 0;
    } else {
      const next = lane.items[lane.head] as DeadlineEntry;
      lane.timer = setTimeout(() => this.#fire(lane), Math.max(0, next.deadlineAt - now()));
    }
    // Expiring may add entries (a deadline extension), so it runs after the lane is consistent.
    for (const item of due) item.expire();
  }
}

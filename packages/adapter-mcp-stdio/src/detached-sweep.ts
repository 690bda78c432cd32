/**
 * Finds a server's descendants that left its process group (`setsid()` daemons) by an environment
 * tag every descendant inherits, and kills them at teardown. Linux only (/proc); a descendant that
 * clears its environment, or runs as another user, is out of reach and reported as left over.
 * @module
 */
import { closeSync, openSync, readdirSync, readSync } from 'node:fs';

/** The environment variable that tags a server and everything it starts. */
export const SERVER_TAG_ENV = 'CLAT_MCP_SERVER_TAG';

/** How long a sweep waits for the processes it killed to be gone, and how often it looks. */
const SWEEP_WAIT_MS = 2_000;
const SWEEP_POLL_MS = 20;

/** Pids read per turn of the event loop: the scan never blocks it for long. */
const SCAN_BATCH = 64;

/**
 * Pids of processes (other than this one) whose environment carries `tag`. Each environ is read
 * synchronously, a batch per event-loop turn: /proc reads never block on a disk, and one
 * synchronous read costs a fraction of the five thread-pool hops of an asynchronous one (the
 * scan reads every process on the machine, at every server's teardown).
 */
export async function taggedProcesses(tag: string): Promise<number[]> {
  if (process.platform !== 'linux') return [];
  const needle = Buffer.from(`${SERVER_TAG_ENV}=${tag}\0`);
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return [];
  }
  const found: number[] = [];
  for (let start = 0; start < entries.length; start += SCAN_BATCH) {
    if (start > 0) await new Promise((resolve) => setImmediate(resolve));
    const end = Math.min(entries.length, start + SCAN_BATCH);
    for (let i = start; i < end; i++) {
      const pid = Number(entries[i]);
      if (!Number.isInteger(pid) || pid === process.pid) continue;
      if (environHas(pid, needle)) found.push(pid);
    }
  }
  return found.sort((a, b) => a - b);
}

/** One read buffer for every environ the scans read; an environ rarely exceeds a few KiB. */
let scratch = Buffer.allocUnsafe(64 * 1024);

/** True when `pid`'s environment holds the `needle` entry; false when it cannot be read. */
function environHas(pid: number, needle: Buffer): boolean {
  let fd: number;
  try {
    fd = openSync(`/proc/${pid}/environ`, 'r');
  } catch {
    // Gone, or another user's: out of reach either way.
    return false;
  }
  let length = 0;
  try {
    for (;;) {
      // An environ larger than the buffer grows it: the whole environ is searched.
      if (length === scratch.length) {
        const grown = Buffer.allocUnsafe(scratch.length * 2);
        scratch.copy(grown, 0, 0, length);
        scratch = grown;
      }
      const read = readSync(fd, scratch, length, scratch.length - length, null);
      if (read === 0) break;
      length += read;
    }
  } catch {
    return false;
  } finally {
    closeSync(fd);
  }
  const environ = scratch.subarray(0, length);
  const at = environ.indexOf(needle);
  return at === 0 || (at > 0 && environ[at - 1] === 0);
}

/**
 * Kills every tagged process and waits (bounded) until none is left: SIGKILL is delivered
 * asynchronously, and on a loaded machine a killed process can take a while to exit. A tagged
 * process that shows up meanwhile (forked just before the kill) is killed too. Returns the pids
 * killed and those still running when the wait ran out.
 */
export async function sweepDetached(tag: string): Promise<{ killed: number[]; left: number[] }> {
  const killed = new Set<number>();
  let left = await taggedProcesses(tag);
  if (left.length === 0) return { killed: [], left: [] };
  const deadline = Date.now() + SWEEP_WAIT_MS;
  while (left.length > 0) {
    for (const pid of left) {
      killed.add(pid);
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // Gone already, or not ours to signal: the next scan tells.
      }
    }
    if (Date.now() >= deadline) break;
    await new Promise((resolve) => setTimeout(resolve, SWEEP_POLL_MS));
    left = await taggedProcesses(tag);
  }
  return { killed: [...killed].filter((pid) => !left.includes(pid)).sort((a, b) => a - b), left };
}

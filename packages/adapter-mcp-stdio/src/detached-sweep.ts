/**
 * Finds a server's descendants that left its process group (`setsid()` daemons) by an environment
 * tag every descendant inherits, and kills them at teardown. Linux only (/proc); a descendant that
 * clears its environment, or runs as another user, is out of reach and reported as left over.
 * @module
 */
import { readdirSync } from 'node:fs';
import { readFile } from 'node:fs/promises';

/** The environment variable that tags a server and everything it starts. */
export const SERVER_TAG_ENV = 'CLAT_MCP_SERVER_TAG';

/** How long a sweep waits for the processes it killed to be gone, and how often it looks. */
const SWEEP_WAIT_MS = 2_000;
const SWEEP_POLL_MS = 20;

/** Environ files read at once (each read is one thread-pool job). */
const SCAN_CONCURRENCY = 8;

/**
 * Pids of processes (other than this one) whose environment carries `tag`. Each environ is read
 * on the thread pool, a few at a time: reading another process's environ takes its memory map's
 * lock, so it waits while that process exits or remaps (17 ms measured beside an exiting 1.5 GB
 * process on 2 cores), and the scan reads every process on the machine at every server's
 * teardown. Read synchronously (as before), those waits blocked the event loop of a host that
 * serves other servers meanwhile (the stdio fault zoo's lag probe caught 59 ms in CI).
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
  const pids = entries.map(Number).filter((pid) => Number.isInteger(pid) && pid !== process.pid);
  const found: number[] = [];
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < pids.length) {
      const pid = pids[next++] as number;
      if (await environHas(pid, needle)) found.push(pid);
    }
  };
  await Promise.all(Array.from({ length: Math.min(SCAN_CONCURRENCY, pids.length) }, worker));
  return found.sort((a, b) => a - b);
}

/** True when `pid`'s environment holds the `needle` entry; false when it cannot be read. */
async function environHas(pid: number, needle: Buffer): Promise<boolean> {
  let environ: Buffer;
  try {
    environ = await readFile(`/proc/${pid}/environ`);
  } catch {
    // Gone, or another user's: out of reach either way.
    return false;
  }
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

/**
 * Finds a server's descendants that left its process group (`setsid()` daemons) by an environment
 * tag every descendant inherits, and kills them at teardown. Linux only (/proc); a descendant that
 * clears its environment, or runs as another user, is out of reach and reported as left over.
 * @module
 */
import { readFile } from 'node:fs/promises';
import { scanProcesses } from '@clat/process';

/** The environment variable that tags a server and everything it starts. */
export const SERVER_TAG_ENV = 'CLAT_MCP_SERVER_TAG';

/** How long a sweep waits for the processes it killed to be gone, and how often it looks. */
const SWEEP_WAIT_MS = 2_000;
const SWEEP_POLL_MS = 20;

/**
 * Pids of processes (other than this one) whose environment carries `tag`. Each environ is read
 * on the thread pool, a few at a time ({@link scanProcesses}): reading another process's environ
 * takes its memory map's lock, so it waits while that process exits or remaps, and the scan runs
 * at every server's teardown while the host serves other servers.
 */
export async function taggedProcesses(tag: string): Promise<number[]> {
  const needle = Buffer.from(`${SERVER_TAG_ENV}=${tag}\0`);
  return (await scanProcesses((pid) => environHas(pid, needle))) ?? [];
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

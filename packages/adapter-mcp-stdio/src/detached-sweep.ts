/**
 * Finds a server's descendants that left its process group (`setsid()` daemons) by an environment
 * tag every descendant inherits, and kills them at teardown. Linux only (/proc); a descendant that
 * clears its environment, or runs as another user, is out of reach and reported as left over.
 * @module
 */
import { readdir, readFile } from 'node:fs/promises';

/** The environment variable that tags a server and everything it starts. */
export const SERVER_TAG_ENV = 'CLAT_MCP_SERVER_TAG';

const SETTLE_MS = 100;

/** Pids of processes (other than this one) whose environment carries `tag`. */
export async function taggedProcesses(tag: string): Promise<number[]> {
  if (process.platform !== 'linux') return [];
  const needle = Buffer.from(`${SERVER_TAG_ENV}=${tag}\0`);
  let entries: string[];
  try {
    entries = await readdir('/proc');
  } catch {
    return [];
  }
  const found: number[] = [];
  await Promise.all(
    entries.map(async (entry) => {
      const pid = Number(entry);
      if (!Number.isInteger(pid) || pid === process.pid) return;
      const environ = await readFile(`/proc/${pid}/environ`).catch(() => undefined);
      if (environ === undefined) return;
      const at = environ.indexOf(needle);
      if (at === 0 || (at > 0 && environ[at - 1] === 0)) found.push(pid);
    }),
  );
  return found.sort((a, b) => a - b);
}

/** Kills every tagged process; returns the pids killed and those still running after. */
export async function sweepDetached(tag: string): Promise<{ killed: number[]; left: number[] }> {
  const pids = await taggedProcesses(tag);
  if (pids.length === 0) return { killed: [], left: [] };
  for (const pid of pids) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // Gone already, or not ours to signal: the re-scan tells.
    }
  }
  await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
  const left = await taggedProcesses(tag);
  return { killed: pids.filter((pid) => !left.includes(pid)), left };
}

/**
 * The exit hook's sweep of processes that left their groups (`setsid()` daemons): found by an
 * environment entry their owner gave them, which every descendant inherits. At `exit` only
 * synchronous code runs, so unlike the owners' own sweeps this one reads /proc synchronously,
 * once for every entry. Linux only; elsewhere it finds nothing.
 * @module
 */
import { readdirSync, readFileSync } from 'node:fs';

/** Whether `environ` (NUL-separated `NAME=value` entries) holds one of `needles` whole. */
function holdsEntry(environ: Buffer, needles: readonly Buffer[]): boolean {
  return needles.some((needle) => {
    for (let at = environ.indexOf(needle); at !== -1; at = environ.indexOf(needle, at + 1)) {
      if (at === 0 || environ[at - 1] === 0) return true;
    }
    return false;
  });
}

/**
 * SIGKILLs every process (this one left out) whose environment holds one of `entries`
 * (`NAME=value`), and returns their pids. A process that cannot be read (gone, another user's)
 * is left alone.
 */
export function killTaggedSync(entries: Iterable<string>): number[] {
  const needles = [...entries].map((entry) => Buffer.from(`${entry}\0`));
  if (needles.length === 0 || process.platform !== 'linux') return [];
  let names: string[];
  try {
    names = readdirSync('/proc');
  } catch {
    return [];
  }
  const killed: number[] = [];
  for (const name of names) {
    const pid = Number(name);
    if (!Number.isInteger(pid) || pid === process.pid) continue;
    let environ: Buffer;
    try {
      environ = readFileSync(`/proc/${pid}/environ`);
    } catch {
      continue;
    }
    if (!holdsEntry(environ, needles)) continue;
    try {
      process.kill(pid, 'SIGKILL');
      killed.push(pid);
    } catch {
      // Gone meanwhile, or not ours to signal.
    }
  }
  return killed;
}

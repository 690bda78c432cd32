/**
 * OAuth state on disk: one owner-only (0600) JSON file per server URL in a 0700 directory the
 * host names (CLAT: `<clat home>/oauth`). Every host that shares the directory shares the
 * logins: `clat mcp login` stores a token, `clat` and `clat-gateway` use and refresh it.
 * @module
 */
import { createHash } from 'node:crypto';
import { chmod, mkdir, open, readFile, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { writeFileAtomic } from '@clat/node-files';
import type { OAuthRecord, TokenStore } from './token-store.js';

/** The file of one server URL: a hash, so the URL (which may carry a path) is not in a name. */
export function oauthFileFor(dir: string, serverUrl: string): string {
  const hash = createHash('sha256').update(serverUrl).digest('hex').slice(0, 32);
  return join(dir, `${hash}.json`);
}

function isRecord(value: unknown, serverUrl: string): value is OAuthRecord {
  return (
    typeof value === 'object' &&
    value !== null &&
    (value as OAuthRecord).version === 1 &&
    (value as OAuthRecord).serverUrl === serverUrl
  );
}

/** How long a refresh may hold a server's lock before another process takes it over. */
const LOCK_STALE_MS = 60_000;
/** How long to wait for another process's refresh before going ahead anyway. */
const LOCK_WAIT_MS = 30_000;
const LOCK_POLL_MS = 50;

/** Whether process `pid` still runs (a lock whose holder is gone is free). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** A {@link TokenStore} in `dir`; records are never printed and never leave the directory. */
export class FileTokenStore implements TokenStore {
  readonly dir: string;

  constructor(dir: string) {
    this.dir = dir;
  }

  async read(serverUrl: string): Promise<OAuthRecord | undefined> {
    let text: string;
    try {
      text = await readFile(oauthFileFor(this.dir, serverUrl), 'utf8');
    } catch {
      return undefined;
    }
    try {
      const value: unknown = JSON.parse(text);
      // A damaged or foreign file is treated as "not logged in"; the next login replaces it.
      return isRecord(value, serverUrl) ? value : undefined;
    } catch {
      return undefined;
    }
  }

  async write(record: OAuthRecord): Promise<void> {
    await mkdir(this.dir, { recursive: true, mode: 0o700 });
    // An existing directory keeps its mode through mkdir: tokens live owner-only regardless.
    await chmod(this.dir, 0o700);
    // A reader sees the old record or the new one, never half of one: a 0600 sibling created
    // exclusively (no other file or link is written through), synced, renamed over the target. A
    // refresh racing another process's refresh keeps one whole record.
    await writeFileAtomic(
      oauthFileFor(this.dir, record.serverUrl),
      `${JSON.stringify(record, null, 2)}\n`,
      { mode: 0o600 },
    );
  }

  /**
   * Holds `<file>.lock` (created exclusively, holding the pid) while `work` runs. A lock whose
   * process is gone, or older than a minute, is taken over; after 30 s of waiting the work runs
   * anyway (a refresh that may race is better than none).
   */
  async exclusive<T>(serverUrl: string, work: () => Promise<T>): Promise<T> {
    await mkdir(this.dir, { recursive: true, mode: 0o700 });
    const lock = `${oauthFileFor(this.dir, serverUrl)}.lock`;
    const mine = String(process.pid);
    const deadline = Date.now() + LOCK_WAIT_MS;
    let held = false;
    while (!held) {
      try {
        const handle = await open(lock, 'wx', 0o600);
        await handle.writeFile(mine);
        await handle.close();
        held = true;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
        const holder = Number.parseInt(await readFile(lock, 'utf8').catch(() => ''), 10);
        const age = Date.now() - ((await stat(lock).catch(() => undefined))?.mtimeMs ?? 0);
        const stale = (Number.isInteger(holder) && !alive(holder)) || age > LOCK_STALE_MS;
        if (stale) await rm(lock, { force: true });
        else if (Date.now() >= deadline) break;
        else await new Promise((resolve) => setTimeout(resolve, LOCK_POLL_MS));
      }
    }
    try {
      return await work();
    } finally {
      if (held && (await readFile(lock, 'utf8').catch(() => '')) === mine) {
        await rm(lock, { force: true });
      }
    }
  }

  async remove(serverUrl: string): Promise<boolean> {
    const file = oauthFileFor(this.dir, serverUrl);
    const existed = (await this.read(serverUrl)) !== undefined;
    await rm(file, { force: true });
    return existed;
  }
}

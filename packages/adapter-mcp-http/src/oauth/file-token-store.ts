/**
 * OAuth state on disk: one owner-only (0600) JSON file per server URL in a 0700 directory the
 * host names (CLAT: `<clat home>/oauth`). Every host that shares the directory shares the
 * logins: `clat mcp login` stores a token, `clat` and `clat-gateway` use and refresh it.
 * @module
 */
import { createHash } from 'node:crypto';
import { chmod, lstat, mkdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { readRefusal, withFileLock, writeFileAtomic } from '@clat/node-files';
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

/**
 * A refresh holds a server's lock for one token request: a lock whose process is gone is taken
 * over, and after 30 s of waiting for a live holder (one that hangs) the refresh goes ahead anyway
 * (a refresh that may race is better than none).
 */
const LOCK_OPTIONS = { waitMs: 30_000, staleMs: 60_000, pollMs: 50, onBusy: () => {} };

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

  /**
   * Why the server's file, when there is one, is not used (`read` takes it for no login): it
   * cannot be read, is not JSON, is of another version (a newer CLAT's) or of another URL; undefined
   * when there is none or it is a login. Said by status listings, so a person who logged in is not
   * left with "no login" and nothing to go on.
   */
  async problem(serverUrl: string): Promise<string | undefined> {
    const file = oauthFileFor(this.dir, serverUrl);
    let text: string;
    try {
      text = await readFile(file, 'utf8');
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOENT') return undefined;
      return (
        readRefusal(file, error) ?? `cannot read ${file} (${code ?? (error as Error).message})`
      );
    }
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      return `${file} is not valid JSON (it was cut short or changed)`;
    }
    if (isRecord(value, serverUrl)) return undefined;
    const version = (value as { version?: unknown } | null)?.version;
    if (typeof version === 'number' && version > 1) {
      return `${file} was written by a newer CLAT (version ${version}; this one reads version 1)`;
    }
    // Not the URL: it is the expanded one, which may carry a key from a ${VAR} in mcp.json.
    return `${file} is another server's login, or not a login CLAT can read`;
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
   * Holds `<file>.lock` (the `@clat/node-files` lock: `pid:token`, taken over when its process is
   * gone or it is older than a minute) while `work` runs; after 30 s of waiting the work runs
   * anyway.
   */
  async exclusive<T>(serverUrl: string, work: () => Promise<T>): Promise<T> {
    await mkdir(this.dir, { recursive: true, mode: 0o700 });
    return withFileLock(`${oauthFileFor(this.dir, serverUrl)}.lock`, LOCK_OPTIONS, work);
  }

  /**
   * Removes the server's file, also one that cannot be read (damaged, from another version):
   * true when there was a file, so a logout of such a login does not say there was none while it
   * deletes it.
   */
  async remove(serverUrl: string): Promise<boolean> {
    const file = oauthFileFor(this.dir, serverUrl);
    const existed = await lstat(file).then(
      () => true,
      () => false,
    );
    await rm(file, { force: true });
    return existed;
  }
}

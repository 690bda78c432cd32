/**
 * OAuth state on disk: one owner-only (0600) JSON file per server URL in a 0700 directory the
 * host names (CLAT: `<clat home>/oauth`). Every host that shares the directory shares the
 * logins: `clat mcp login` stores a token, `clat` and `clat-gateway` use and refresh it.
 * @module
 */
import { createHash } from 'node:crypto';
import { chmod, mkdir, readFile, rm } from 'node:fs/promises';
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

  async remove(serverUrl: string): Promise<boolean> {
    const file = oauthFileFor(this.dir, serverUrl);
    const existed = (await this.read(serverUrl)) !== undefined;
    await rm(file, { force: true });
    return existed;
  }
}

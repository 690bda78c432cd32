/**
 * OAuth state on disk: one 0600 JSON file per server URL under `<clat home>/oauth/` (a 0700
 * directory). Never in mcp.json, never printed.
 * @module
 */
import { createHash } from 'node:crypto';
import { chmod, mkdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { OAuthRecord, TokenStore } from '@clat/adapter-mcp-http';
import { writeFileAtomic } from './atomic-write.js';

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

export class FileTokenStore implements TokenStore {
  /** `<clat home>/oauth`. */
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
    await chmod(this.dir, 0o700);
    const file = oauthFileFor(this.dir, record.serverUrl);
    await writeFileAtomic(file, `${JSON.stringify(record, null, 2)}\n`, 0o600);
    // writeFileAtomic keeps an existing file's mode; tokens are always owner-only.
    await chmod(file, 0o600);
  }

  async remove(serverUrl: string): Promise<boolean> {
    const file = oauthFileFor(this.dir, serverUrl);
    const existed = (await this.read(serverUrl)) !== undefined;
    await rm(file, { force: true });
    return existed;
  }
}

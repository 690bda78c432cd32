/**
 * `~/.clat/mcp-eras.json` (0600): which server configurations negotiated the legacy era, so the
 * next start sends `initialize` to the first process instead of probing a disposable one first.
 * Keyed by the configuration digest (a changed command, args, URL or package is another key);
 * a record is dropped when the server reports another version or when it turned out modern, so
 * the next start probes again. A cache: unreadable content is ignored and rewritten.
 * @module
 */
import { entryDigest } from '../approvals/entry-digest.js';
import { writeFileAtomic } from './atomic-write.js';
import { readSmallFile } from './read-small-file.js';

/** The file name under the CLAT home. */
export const ERA_FILE = 'mcp-eras.json';

interface EraRecord {
  era: 'legacy';
  /** The server's reported `serverInfo.version` when the era was recorded. */
  serverVersion: string;
  at: string;
}

/** What the MCP connector asks before and tells after a connect. */
export interface EraMemory {
  hint(entry: { name: string }): Promise<'legacy' | undefined>;
  /** Records the negotiated era; `hinted` says whether the connect skipped the probe. */
  record(
    entry: { name: string },
    era: string | undefined,
    serverVersion: string | undefined,
    hinted: boolean,
  ): Promise<void>;
}

export class EraStore implements EraMemory {
  readonly file: string;
  #records: Promise<Record<string, EraRecord>> | undefined;
  /** Writes one at a time: servers connect in parallel. */
  #writing: Promise<void> = Promise.resolve();

  constructor(file: string) {
    this.file = file;
    // Read now, while the host is being composed: the first connect's hint then waits for no
    // file I/O before it spawns the server. A missing or broken file reads as empty.
    void this.#load();
  }

  #load(): Promise<Record<string, EraRecord>> {
    // One synchronous read (read-small-file.ts): the first connect's hint then waits for no
    // thread-pool round trip before its server can spawn.
    this.#records ??= Promise.resolve(EraStore.#parse(this.file));
    return this.#records;
  }

  /** The legacy records in `file`; a missing, unreadable or broken file reads as empty. */
  static #parse(file: string): Record<string, EraRecord> {
    const out: Record<string, EraRecord> = Object.create(null);
    try {
      const text = readSmallFile(file);
      if (text === undefined) return out;
      const root = JSON.parse(text) as { servers?: unknown };
      const servers = root.servers;
      if (typeof servers !== 'object' || servers === null) return out;
      for (const [digest, value] of Object.entries(servers)) {
        const record = value as Partial<EraRecord>;
        if (record.era === 'legacy' && typeof record.serverVersion === 'string') {
          out[digest] = {
            era: 'legacy',
            serverVersion: record.serverVersion,
            at: String(record.at ?? ''),
          };
        }
      }
      return out;
    } catch {
      return Object.create(null);
    }
  }

  async hint(entry: { name: string }): Promise<'legacy' | undefined> {
    const records = await this.#load();
    return records[entryDigest(entry)]?.era;
  }

  async record(
    entry: { name: string },
    era: string | undefined,
    serverVersion: string | undefined,
    hinted: boolean,
  ): Promise<void> {
    const records = await this.#load();
    const digest = entryDigest(entry);
    const known = records[digest];
    if (era === 'legacy' && serverVersion !== undefined) {
      // A hinted connect that meets another version re-probes next time.
      if (hinted && known !== undefined && known.serverVersion !== serverVersion)
        delete records[digest];
      else if (known?.serverVersion === serverVersion) return;
      else records[digest] = { era: 'legacy', serverVersion, at: new Date().toISOString() };
    } else if (known !== undefined) {
      delete records[digest];
    } else return;
    const text = `${JSON.stringify({ version: 1, servers: records }, null, 2)}\n`;
    this.#writing = this.#writing
      .then(() => writeFileAtomic(this.file, text, 0o600))
      .catch(() => {
        // A cache that cannot be written only costs the next start a probe.
      });
    await this.#writing;
  }
}

/**
 * The era memory of a Node host, in one file (CLAT: `<clat home>/mcp-eras.json`, 0600): which
 * server configurations negotiated the legacy era, so the next start sends `initialize` to the
 * first process instead of probing a disposable one first. The probe it saves is a whole second
 * spawn for a stdio server (an `npx` start, a Python interpreter), which is why it lives here; an
 * HTTP entry is remembered the same way. Hosts that share the file share the memory (`clat` and
 * `clat-gateway` read the same one).
 *
 * Keyed by the configuration digest (a changed command, args, URL or package is another key); a
 * record is dropped when the server reports another version or turns out modern, so the next
 * start probes again. A cache: unreadable content is ignored and rewritten. Each write applies
 * its one change to the file as it is then, under `mcp-eras.json.lock`, so processes sharing it
 * keep each other's records.
 * @module
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { McpEraMemory, McpServerConfig } from '@clat/adapter-mcp';
import { withFileLock, writeFileAtomic } from '@clat/node-files';

/** The file name under a CLAT home. */
export const ERA_FILE = 'mcp-eras.json';

interface EraRecord {
  era: 'legacy';
  /** The server's reported `serverInfo.version` when the era was recorded. */
  serverVersion: string;
  at: string;
}

/** Stable JSON: object keys sorted at every level. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (typeof value === 'object' && value !== null) {
    const keys = Object.keys(value).sort();
    return `{${keys.map((key) => `${JSON.stringify(key)}:${canonical((value as Record<string, unknown>)[key])}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/**
 * `sha256:<hex>` of what decides which program or endpoint answers an entry (command, args, cwd,
 * URL, package path and pins) and the names, not values, of its env variables and headers:
 * rotating a key keeps the digest, another binary changes it. Its origin is left out.
 */
export function configDigest(entry: { name: string }): string {
  const shaped: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(entry as object)) {
    if ((key === 'env' || key === 'headers') && typeof value === 'object' && value !== null) {
      shaped[key] = Object.keys(value).sort();
    } else if (key !== 'origin') shaped[key] = value;
  }
  return `sha256:${createHash('sha256').update(canonical(shaped)).digest('hex')}`;
}

/** The legacy records in `file`; a missing, unreadable or broken file reads as empty. */
function parse(file: string): Record<string, EraRecord> {
  const out: Record<string, EraRecord> = Object.create(null);
  try {
    // One synchronous read of a file of a few KiB: the first connect's hint then waits for no
    // thread-pool round trips before its server can spawn.
    const root = JSON.parse(readFileSync(file, 'utf8')) as { servers?: unknown };
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
    return out;
  }
}

/**
 * A write takes milliseconds: a lock held longer belongs to a stopped process. Past the wait the
 * write goes ahead unlocked, as a cache may (the worst is one more probe at a later start).
 */
const LOCK_OPTIONS = { waitMs: 2_000, staleMs: 5_000, onBusy: () => undefined };

/** An {@link McpEraMemory} in `file` (0600; a missing directory is created 0700). */
export class FileEraMemory implements McpEraMemory {
  readonly file: string;
  #records: Promise<Record<string, EraRecord>> | undefined;
  /** Writes one at a time: servers connect in parallel. */
  #writing: Promise<void> = Promise.resolve();

  constructor(file: string) {
    this.file = file;
    // Read now, while the host is being composed, not at the first connect.
    void this.#load();
  }

  #load(): Promise<Record<string, EraRecord>> {
    this.#records ??= Promise.resolve(parse(this.file));
    return this.#records;
  }

  async hint(server: McpServerConfig | { name: string }): Promise<'legacy' | undefined> {
    const records = await this.#load();
    return records[configDigest(server)]?.era;
  }

  async record(
    server: McpServerConfig | { name: string },
    era: string | undefined,
    serverVersion: string | undefined,
    hinted: boolean,
  ): Promise<void> {
    const records = await this.#load();
    const digest = configDigest(server);
    const known = records[digest];
    let change: EraRecord | undefined;
    if (era === 'legacy' && serverVersion !== undefined) {
      // A hinted connect that meets another version re-probes next time.
      if (hinted && known !== undefined && known.serverVersion !== serverVersion)
        change = undefined;
      else if (known?.serverVersion === serverVersion) return;
      else change = { era: 'legacy', serverVersion, at: new Date().toISOString() };
    } else if (known === undefined) return;
    if (change === undefined) delete records[digest];
    else records[digest] = change;
    this.#writing = this.#writing
      .then(async () => {
        // The file as it is now, with this one change: another clat process (a parallel
        // `clat tools`, the gateway) records its servers in the same file, and writing the
        // snapshot this process read at its start dropped every record they added meanwhile.
        await mkdir(dirname(this.file), { recursive: true, mode: 0o700 });
        await withFileLock(`${this.file}.lock`, LOCK_OPTIONS, async () => {
          const current = parse(this.file);
          if (change === undefined) delete current[digest];
          else current[digest] = change;
          const text = `${JSON.stringify({ version: 1, servers: current }, null, 2)}\n`;
          await writeFileAtomic(this.file, text, { mode: 0o600 });
        });
      })
      .catch(() => {
        // A cache that cannot be written only costs the next start a probe.
      });
    await this.#writing;
  }
}

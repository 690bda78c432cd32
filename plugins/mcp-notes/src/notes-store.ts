/**
 * Notes kept in one JSON file, rewritten atomically (temp + fsync + rename) on every change. Each
 * CLAT process starts its own copy of this server on the same data directory (two terminals, a
 * script running `clat call` in parallel), so a change is made under a lock file as well as in
 * turn within the process: read-change-write by two processes at once kept only one's note.
 * @module
 */
import { randomBytes } from 'node:crypto';
import { mkdir, open, readFile, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { lock } from 'proper-lockfile';

export const NOTES_FILE = 'notes.json';

export interface Note {
  id: string;
  title: string;
  body: string;
  tags: string[];
  createdAt: string;
}

export interface NoteSummary {
  id: string;
  title: string;
  tags: string[];
  createdAt: string;
}

export interface SearchHit extends NoteSummary {
  snippet: string;
}

interface NotesFile {
  version: 1;
  notes: Note[];
}

const SNIPPET_RADIUS = 60;

function summary(note: Note): NoteSummary {
  return { id: note.id, title: note.title, tags: note.tags, createdAt: note.createdAt };
}

function snippetAround(text: string, index: number, length: number): string {
  const start = Math.max(0, index - SNIPPET_RADIUS);
  const end = Math.min(text.length, index + length + SNIPPET_RADIUS);
  return `${start > 0 ? '…' : ''}${text.slice(start, end)}${end < text.length ? '…' : ''}`;
}

/**
 * How long a change waits for another process's, and when a lock counts as abandoned: a change
 * takes milliseconds, and proper-lockfile refreshes a held lock's age while its holder lives.
 */
const LOCK_OPTIONS = {
  stale: 10_000,
  realpath: false,
  retries: { retries: 100, minTimeout: 10, maxTimeout: 100 },
};

/**
 * A notes file under `dir`. Changes are serialized within the process and locked across
 * processes, so concurrent tool calls, in one server or in several, never lose a note.
 */
export class NotesStore {
  readonly dir: string;
  readonly file: string;
  #queue: Promise<unknown> = Promise.resolve();
  readonly #now: () => Date;

  constructor(dir: string, now: () => Date = () => new Date()) {
    this.dir = dir;
    this.file = join(dir, NOTES_FILE);
    this.#now = now;
  }

  async #read(): Promise<NotesFile> {
    let text: string;
    try {
      text = await readFile(this.file, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { version: 1, notes: [] };
      throw error;
    }
    const parsed = JSON.parse(text) as Partial<NotesFile>;
    if (parsed.version !== 1 || !Array.isArray(parsed.notes)) {
      throw new Error(`${this.file} is not a version 1 notes file`);
    }
    return parsed as NotesFile;
  }

  async #write(data: NotesFile): Promise<void> {
    await mkdir(this.dir, { recursive: true, mode: 0o700 });
    const temp = join(this.dir, `.${NOTES_FILE}.${process.pid}.${randomBytes(4).toString('hex')}`);
    try {
      const handle = await open(temp, 'wx', 0o600);
      try {
        await handle.writeFile(`${JSON.stringify(data, null, 2)}\n`);
        await handle.sync();
      } finally {
        await handle.close();
      }
      await rename(temp, this.file);
    } catch (error) {
      await rm(temp, { force: true });
      throw error;
    }
    const dirHandle = await open(this.dir, 'r');
    try {
      await dirHandle.sync();
    } finally {
      await dirHandle.close();
    }
  }

  #serial<T>(task: () => Promise<T>): Promise<T> {
    const locked = async () => {
      await mkdir(this.dir, { recursive: true, mode: 0o700 });
      // `<dir>/notes.json.lock` (a directory): the file itself need not exist yet.
      const release = await lock(this.file, { ...LOCK_OPTIONS, lockfilePath: `${this.file}.lock` });
      try {
        return await task();
      } finally {
        await release();
      }
    };
    const next = this.#queue.then(locked, locked);
    this.#queue = next.catch(() => undefined);
    return next;
  }

  add(input: { title: string; body: string; tags?: readonly string[] }): Promise<Note> {
    return this.#serial(async () => {
      const data = await this.#read();
      const note: Note = {
        id: randomBytes(6).toString('hex'),
        title: input.title,
        body: input.body,
        tags: [...new Set(input.tags ?? [])],
        createdAt: this.#now().toISOString(),
      };
      data.notes.push(note);
      await this.#write(data);
      return note;
    });
  }

  async list(filter: { tag?: string; limit?: number } = {}): Promise<NoteSummary[]> {
    await this.#queue;
    const { notes } = await this.#read();
    const matching = notes.filter(
      (note) => filter.tag === undefined || note.tags.includes(filter.tag),
    );
    const newestFirst = matching.reverse();
    return (filter.limit === undefined ? newestFirst : newestFirst.slice(0, filter.limit)).map(
      summary,
    );
  }

  async get(id: string): Promise<Note | undefined> {
    await this.#queue;
    const { notes } = await this.#read();
    return notes.find((note) => note.id === id);
  }

  /** Case-insensitive substring search over titles, bodies and tags. */
  async search(query: string): Promise<SearchHit[]> {
    await this.#queue;
    const needle = query.toLowerCase();
    const { notes } = await this.#read();
    const hits: SearchHit[] = [];
    for (const note of [...notes].reverse()) {
      const inBody = note.body.toLowerCase().indexOf(needle);
      const inTitle = note.title.toLowerCase().includes(needle);
      const inTags = note.tags.some((tag) => tag.toLowerCase().includes(needle));
      if (inBody < 0 && !inTitle && !inTags) continue;
      const snippet =
        inBody >= 0 ? snippetAround(note.body, inBody, needle.length) : note.body.slice(0, 120);
      hits.push({ ...summary(note), snippet });
    }
    return hits;
  }

  remove(id: string): Promise<boolean> {
    return this.#serial(async () => {
      const data = await this.#read();
      const index = data.notes.findIndex((note) => note.id === id);
      if (index < 0) return false;
      data.notes.splice(index, 1);
      await this.#write(data);
      return true;
    });
  }
}

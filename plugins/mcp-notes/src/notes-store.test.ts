import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { NOTES_FILE, NotesStore } from './notes-store.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'notes-store-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('NotesStore', () => {
  it('adds, lists newest first, filters by tag and limits', async () => {
    let tick = 0;
    const store = new NotesStore(dir, () => new Date(Date.UTC(2026, 0, 1, 0, 0, tick++)));
    const a = await store.add({ title: 'first', body: 'alpha', tags: ['x', 'x'] });
    const b = await store.add({ title: 'second', body: 'beta', tags: ['y'] });
    expect(a.tags).toEqual(['x']);
    expect((await store.list()).map((n) => n.id)).toEqual([b.id, a.id]);
    expect((await store.list({ tag: 'x' })).map((n) => n.id)).toEqual([a.id]);
    expect(await store.list({ limit: 1 })).toHaveLength(1);
    expect(await store.get(a.id)).toMatchObject({ body: 'alpha', title: 'first' });
  });

  it('searches titles, bodies and tags case-insensitively with a snippet', async () => {
    const store = new NotesStore(dir);
    await store.add({ title: 'Groceries', body: 'milk and BREAD', tags: ['home'] });
    await store.add({ title: 'Work', body: 'ship the release', tags: ['job'] });
    expect((await store.search('bread')).map((h) => h.title)).toEqual(['Groceries']);
    expect((await store.search('bread'))[0]?.snippet).toContain('BREAD');
    expect((await store.search('JOB')).map((h) => h.title)).toEqual(['Work']);
    expect(await store.search('nothing-matches')).toEqual([]);
  });

  it('keeps every note under concurrent adds and leaves no temp files', async () => {
    const store = new NotesStore(dir);
    await Promise.all(
      Array.from({ length: 25 }, (_, i) => store.add({ title: `n${i}`, body: String(i) })),
    );
    expect(await store.list()).toHaveLength(25);
    expect(await readdir(dir)).toEqual([NOTES_FILE]);
    const onDisk = JSON.parse(await readFile(join(dir, NOTES_FILE), 'utf8'));
    expect(onDisk.notes).toHaveLength(25);
  });

  it('keeps every note when two servers (two CLAT processes) add to one directory at once', async () => {
    // Two stores on one directory stand for two processes: neither orders the other's writes.
    const stores = [new NotesStore(dir), new NotesStore(dir)];
    await Promise.all(
      Array.from({ length: 30 }, (_, i) => stores[i % 2]?.add({ title: `n${i}`, body: String(i) })),
    );
    expect(await new NotesStore(dir).list()).toHaveLength(30);
    expect(await readdir(dir)).toEqual([NOTES_FILE]);
  });

  it('removes a note and reports a missing id', async () => {
    const store = new NotesStore(dir);
    const note = await store.add({ title: 't', body: 'b' });
    expect(await store.remove(note.id)).toBe(true);
    expect(await store.remove(note.id)).toBe(false);
    expect(await store.list()).toEqual([]);
  });

  it('refuses a file that is not a version 1 notes file, naming it', async () => {
    await writeFile(join(dir, NOTES_FILE), '{"version":2,"notes":[]}');
    await expect(new NotesStore(dir).list()).rejects.toThrow(join(dir, NOTES_FILE));
  });
});

import { mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FileTokenStore, oauthFileFor } from './file-token-store.js';
import type { OAuthRecord } from './token-store.js';

let base: string;
beforeEach(async () => {
  base = await mkdtemp(join(tmpdir(), 'clat-token-store-'));
});
afterEach(() => rm(base, { recursive: true, force: true }));

const URL_A = 'https://mcp.example.test/a/mcp';
const record = (token: string, serverUrl = URL_A): OAuthRecord => ({
  version: 1,
  serverUrl,
  issuer: 'https://auth.example.test',
  tokens: { accessToken: token, refreshToken: `r-${token}` },
});

describe('FileTokenStore', () => {
  it('writes one owner-only file per server URL in an owner-only directory, named by a hash', async () => {
    const dir = join(base, 'oauth');
    const store = new FileTokenStore(dir);
    await store.write(record('t1'));
    const file = oauthFileFor(dir, URL_A);
    expect(file).not.toContain('example');
    expect((await stat(dir)).mode & 0o777).toBe(0o700);
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect(await store.read(URL_A)).toEqual(record('t1'));
    // Replaced whole; no temp file is left behind.
    await store.write(record('t2'));
    expect((await store.read(URL_A))?.tokens?.accessToken).toBe('t2');
    expect(await readdir(dir)).toEqual([file.slice(dir.length + 1)]);
  });

  it('tightens a directory that exists with a looser mode', async () => {
    const dir = join(base, 'oauth');
    await import('node:fs/promises').then((fs) => fs.mkdir(dir, { mode: 0o755 }));
    await new FileTokenStore(dir).write(record('t'));
    expect((await stat(dir)).mode & 0o777).toBe(0o700);
  });

  it('reads a damaged, foreign or missing record as not logged in', async () => {
    const dir = join(base, 'oauth');
    const store = new FileTokenStore(dir);
    expect(await store.read(URL_A)).toBeUndefined();
    await store.write(record('t'));
    await writeFile(oauthFileFor(dir, URL_A), '{not json');
    expect(await store.read(URL_A)).toBeUndefined();
    // A record for another URL in this URL's file is not used for it.
    await writeFile(
      oauthFileFor(dir, URL_A),
      JSON.stringify(record('x', 'https://other.test/mcp')),
    );
    expect(await store.read(URL_A)).toBeUndefined();
  });

  it('says why a file it does not use is not a login, for status listings', async () => {
    const dir = join(base, 'oauth');
    const store = new FileTokenStore(dir);
    const file = oauthFileFor(dir, URL_A);
    expect(await store.problem(URL_A)).toBeUndefined();
    await store.write(record('t'));
    expect(await store.problem(URL_A)).toBeUndefined();
    await writeFile(file, '{"version":1,"serverUrl":');
    expect(await store.problem(URL_A)).toBe(
      `${file} is not valid JSON (it was cut short or changed)`,
    );
    await writeFile(file, JSON.stringify({ ...record('t'), version: 2 }));
    expect(await store.problem(URL_A)).toBe(
      `${file} was written by a newer CLAT (version 2; this one reads version 1)`,
    );
    await writeFile(file, JSON.stringify(record('x', 'https://other.test/mcp')));
    expect(await store.problem(URL_A)).toBe(
      `${file} is another server's login, or not a login CLAT can read`,
    );
    await rm(file);
    await mkdir(file);
    expect(await store.problem(URL_A)).toBe(`cannot read ${file} (EISDIR)`);
  });

  it('removes a record and says whether there was one', async () => {
    const dir = join(base, 'oauth');
    const store = new FileTokenStore(dir);
    await store.write(record('t'));
    expect(await store.remove(URL_A)).toBe(true);
    expect(await store.remove(URL_A)).toBe(false);
    await expect(readFile(oauthFileFor(dir, URL_A))).rejects.toThrow();
    // A damaged file is removed too, and said to have been there.
    await writeFile(oauthFileFor(dir, URL_A), '{"version":1,"serverUrl":');
    expect(await store.read(URL_A)).toBeUndefined();
    expect(await store.remove(URL_A)).toBe(true);
    await expect(readFile(oauthFileFor(dir, URL_A))).rejects.toThrow();
  });

  it('exclusive runs one piece of work per server at a time and frees a lock whose process is gone', async () => {
    const dir = join(base, 'oauth');
    const store = new FileTokenStore(dir);
    const order: string[] = [];
    const step = (name: string, ms: number) => () =>
      new Promise<string>((resolve) => {
        order.push(`${name} start`);
        setTimeout(() => {
          order.push(`${name} end`);
          resolve(name);
        }, ms);
      });
    const done = await Promise.all([
      store.exclusive(URL_A, step('a', 60)),
      store.exclusive(URL_A, step('b', 10)),
    ]);
    expect(done).toEqual(['a', 'b']);
    // Whichever took the lock first, the other started only after it ended.
    const [first, , second] = order.map((line) => line.split(' ')[0]);
    expect(order).toEqual([`${first} start`, `${first} end`, `${second} start`, `${second} end`]);
    expect(first).not.toBe(second);
    expect(await readdir(dir)).toEqual([]);
    // A lock left by a process that is gone (pid 2^22 + 1 is above Linux's pid_max).
    await writeFile(`${oauthFileFor(dir, URL_A)}.lock`, String(2 ** 22 + 1));
    expect(await store.exclusive(URL_A, async () => 'ran')).toBe('ran');
    expect(await readdir(dir)).toEqual([]);
  });
});

import { spawn, spawnSync } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { lockHolderPid, withFileLock } from './file-lock.js';

let dir = '';
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'clat-file-lock-'));
});
afterEach(() => rm(dir, { recursive: true, force: true }));

const fail = (): never => {
  throw new Error('busy');
};
const quick = { waitMs: 5_000, staleMs: 60_000, pollMs: 5, onBusy: fail };

/** A pid that is certainly gone: a child that has already exited. */
function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', '0']);
  return child.pid;
}

describe('withFileLock', () => {
  it('serialises read-modify-write edits, so none is lost, and leaves no file behind', async () => {
    const file = join(dir, 'list.json');
    await writeFile(file, '[]');
    const lock = `${file}.lock`;
    await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        withFileLock(lock, quick, async () => {
          const list = JSON.parse(await readFile(file, 'utf8')) as number[];
          await new Promise((resolve) => setTimeout(resolve, 1));
          list.push(i);
          await writeFile(file, JSON.stringify(list));
        }),
      ),
    );
    const list = JSON.parse(await readFile(file, 'utf8')) as number[];
    expect(list.sort((a, b) => a - b)).toEqual(Array.from({ length: 20 }, (_, i) => i));
    expect(await readdir(dir)).toEqual(['list.json']);
  });

  it('releases the lock when the work throws', async () => {
    const lock = join(dir, 'x.lock');
    await expect(
      withFileLock(lock, quick, async () => {
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    expect(await readdir(dir)).toEqual([]);
  });

  it('takes over a lock whose process is gone, in the pid:token and bare-pid forms', async () => {
    for (const content of [`${deadPid()}:old-token`, String(deadPid())]) {
      const lock = join(dir, 'x.lock');
      await writeFile(lock, content);
      expect(await withFileLock(lock, quick, async () => readFile(lock, 'utf8'))).toMatch(
        new RegExp(`^${process.pid}:`),
      );
      expect(await readdir(dir)).toEqual([]);
    }
  });

  it('takes over a live holder only once the lock is older than staleMs', async () => {
    const lock = join(dir, 'x.lock');
    await writeFile(lock, `${process.ppid}:someone`);
    const old = new Date(Date.now() - 120_000);
    await utimes(lock, old, old);
    expect(await withFileLock(lock, quick, async () => 'ran')).toBe('ran');
    expect(await readdir(dir)).toEqual([]);
  });

  it('waits for a live holder, then lets onBusy throw or proceed, and never removes its lock', async () => {
    const lock = join(dir, 'x.lock');
    const holder = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60_000)']);
    try {
      await writeFile(lock, `${holder.pid}:theirs`);
      const seen: Array<number | undefined> = [];
      const short = { waitMs: 60, staleMs: 60_000, pollMs: 5 };
      await expect(
        withFileLock(
          lock,
          {
            ...short,
            onBusy: (busy) => {
              seen.push(busy.pid);
              throw new Error(`held by ${busy.pid}`);
            },
          },
          async () => 'ran',
        ),
      ).rejects.toThrow(`held by ${holder.pid}`);
      expect(await withFileLock(lock, { ...short, onBusy: () => {} }, async () => 'ran')).toBe(
        'ran',
      );
      expect(seen).toEqual([holder.pid]);
      expect(await readFile(lock, 'utf8')).toBe(`${holder.pid}:theirs`);
    } finally {
      holder.kill();
    }
  });

  it('gets the lock as soon as a live holder releases it', async () => {
    const lock = join(dir, 'x.lock');
    const order: string[] = [];
    let release: () => void = () => {};
    const first = withFileLock(lock, quick, async () => {
      order.push('first');
      await new Promise<void>((resolve) => {
        release = resolve;
      });
      order.push('first done');
    });
    // Until the first holds it (a fixed wait failed in CI, the machine busy with other suites).
    for (let i = 0; i < 500 && order.length === 0; i++) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    const second = withFileLock(lock, quick, async () => {
      order.push('second');
    });
    // The second polls meanwhile: it must not get a lock the first still holds.
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(order).toEqual(['first']);
    release();
    await Promise.all([first, second]);
    expect(order).toEqual(['first', 'first done', 'second']);
  });
});

describe('lockHolderPid', () => {
  it('reads the pid of pid:token and of a bare pid, nothing else', () => {
    expect(lockHolderPid('4242:0f3c')).toBe(4242);
    expect(lockHolderPid('4242')).toBe(4242);
    expect(lockHolderPid('4242x:0f3c')).toBeUndefined();
    expect(lockHolderPid('not a lock')).toBeUndefined();
    expect(lockHolderPid('')).toBeUndefined();
    expect(lockHolderPid(undefined)).toBeUndefined();
  });
});

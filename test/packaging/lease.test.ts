/**
 * The storage-root lease across real processes: a `clat plugin` mutation waits for another
 * process's lease and runs once it is released (two commands at once take turns; before, the
 * second failed at once); a holder that keeps it past the wait (20 s) gets the busy message and
 * nothing changes; once the holder is SIGKILLed, the next mutation reclaims the stale lease.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type ClatExit, execClat } from '../support/clat-bin.js';

const HOLDER = fileURLToPath(new URL('./fixtures/lease-holder.mjs', import.meta.url));

let work: string;
let home: string;
let holder: ChildProcess | undefined;

function clat(...args: string[]): Promise<ClatExit> {
  return execClat(args, { cwd: work, home });
}

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'clat-lease-'));
  home = join(work, 'home');
  const entry = '#!/usr/bin/env node\n';
  await mkdir(join(work, 'pkg'), { recursive: true });
  await writeFile(join(work, 'pkg', 'run.mjs'), entry);
  await chmod(join(work, 'pkg', 'run.mjs'), 0o755);
  await writeFile(
    join(work, 'pkg', 'clat-plugin.json'),
    JSON.stringify({
      manifestVersion: 1,
      id: 'leased',
      name: 'Leased',
      version: '1',
      runtime: {
        kind: 'mcp-stdio',
        entry: 'run.mjs',
        sha256: createHash('sha256').update(entry).digest('hex'),
      },
    }),
  );
});
afterEach(() => {
  holder?.kill('SIGKILL');
  holder = undefined;
});
afterAll(async () => {
  await rm(work, { recursive: true, force: true });
});

describe('storage-root lease', () => {
  it('waits for a live holder, reports busy past the wait, and reclaims it after the holder dies', async () => {
    expect((await clat('plugin', 'install', 'pkg')).code).toBe(0);

    const hold = async () => {
      const child = spawn(process.execPath, [HOLDER, home], {
        stdio: ['pipe', 'pipe', 'inherit'],
      });
      holder = child;
      await new Promise<void>((resolve, reject) => {
        child.stdout?.once('data', () => resolve());
        child.once('exit', (code) => reject(new Error(`lease holder exited with ${code}`)));
      });
      return child;
    };

    // Released while the command waits: it runs then.
    const brief = await hold();
    const waiting = clat('plugin', 'disable', 'leased');
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    brief.stdin?.write('release\n');
    const turn = await waiting;
    expect(turn.code, turn.stderr).toBe(0);
    expect((await clat('plugin', 'enable', 'leased')).code).toBe(0);
    const before = await readFile(join(home, 'plugin-store', 'registry.json'), 'utf8');

    // Held past the wait: busy, naming the holder, and nothing changes.
    const child = await hold();
    const busy = await clat('plugin', 'disable', 'leased');
    expect(busy.code).toBe(1);
    expect(busy.stderr).toBe(
      `clat: CLAT storage is busy: process ${child.pid} holds ${join(home, 'plugin-store', 'lock')} (another clat command changing the installed plugins); retry once it has finished [STORE_BUSY]\n`,
    );
    expect(await readFile(join(home, 'plugin-store', 'registry.json'), 'utf8')).toBe(before);
    // Reading is not a mutation: list still works.
    expect((await clat('plugin', 'list')).code).toBe(0);

    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
    holder = undefined;
    const disabled = await clat('plugin', 'disable', 'leased');
    expect(disabled.code, disabled.stderr).toBe(0);
  }, 90_000);
});

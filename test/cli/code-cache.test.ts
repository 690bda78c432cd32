/**
 * The binary loads its main bundle through V8's code cache, kept in `<clat home>/cache/code`
 * (apps/clat/src/bin-main-bundle.ts). Through the real binary: each command's first run writes
 * one private cache file of its own, the next runs take it as it is, a damaged or foreign cache
 * costs nothing but a rewrite, an old build's cache is removed, and the cache can be switched off.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useCliSandbox } from './support.js';

const sandbox = useCliSandbox();

const cacheDir = () => join(sandbox.home, 'cache', 'code');

async function cacheFiles(): Promise<string[]> {
  return existsSync(cacheDir()) ? (await readdir(cacheDir())).sort() : [];
}

/** The one cache file, after checking there is exactly one and nothing half-written. */
async function theCacheFile(command: string): Promise<string> {
  const files = await cacheFiles();
  expect(files).toHaveLength(1);
  expect(files[0]).toMatch(cacheName(command));
  return join(cacheDir(), files[0] as string);
}

/** The name of a cache file `clat <command>` writes. */
const cacheName = (command: string) =>
  new RegExp(`^[0-9a-f]{16}-v\\d+\\.\\d+\\.\\d+-[a-z0-9]+-[0-9a-f]+-${command}\\.bin$`);

describe('the code cache of the clat binary', () => {
  it('is written once per command, private to the user, and taken as it is by the next runs', async () => {
    const first = await sandbox.run(['tools', '--trust']);
    expect(first.code, first.stderr).toBe(0);
    const file = await theCacheFile('tools');
    if (process.platform !== 'win32') {
      expect(statSync(file).mode & 0o777).toBe(0o600);
      expect(statSync(cacheDir()).mode & 0o777).toBe(0o700);
      expect(statSync(join(sandbox.home, 'cache')).mode & 0o777).toBe(0o700);
    }
    expect((await stat(file)).size).toBeGreaterThan(10_000);
    const written = await stat(file);
    for (const args of [['tools', '--trust'], ['--version'], ['mcp', 'list']]) {
      const again = await sandbox.run(args);
      expect(again.code, again.stderr).toBe(0);
    }
    // `--version` and `mcp` wrote their own; `tools` kept its cache.
    const files = await cacheFiles();
    expect(files).toHaveLength(3);
    for (const command of ['mcp', 'tools', 'version']) {
      expect(
        files.some((name) => cacheName(command).test(name)),
        command,
      ).toBe(true);
    }
    const version = join(cacheDir(), files.find((name) => cacheName('version').test(name)) ?? '');
    const versionWritten = await stat(version);
    // The cache `--version` wrote holds only what it compiled: less than `tools`'s.
    expect(versionWritten.size).toBeLessThan(written.size);
    expect(await sandbox.run(['tools', '--trust'])).toMatchObject({
      code: 0,
      stdout: first.stdout,
    });
    expect((await sandbox.run(['--version'])).code).toBe(0);
    // Accepted, so never rewritten: the same files, untouched.
    for (const [path, before] of [
      [file, written],
      [version, versionWritten],
    ] as const) {
      const after = await stat(path);
      expect([after.ino, after.mtimeMs]).toEqual([before.ino, before.mtimeMs]);
    }
  });

  it('gives bare `clat` without a terminal the cache of the help it prints', async () => {
    const bare = await sandbox.run([]);
    expect(bare.code, bare.stderr).toBe(0);
    expect(bare.stdout).toContain('Usage: clat <command>');
    const file = await theCacheFile('help');
    const written = await stat(file);
    const help = await sandbox.run(['--help']);
    expect(help).toMatchObject({ code: 0, stdout: bare.stdout });
    // `--help` took the same cache as it was.
    const after = await stat(await theCacheFile('help'));
    expect([after.ino, after.mtimeMs]).toEqual([written.ino, written.mtimeMs]);
  });

  it('replaces a damaged cache and still runs the command', async () => {
    const clean = await sandbox.run(['tools', '--trust']);
    expect(clean.code, clean.stderr).toBe(0);
    const file = await theCacheFile('tools');
    const good = await readFile(file);
    // Same length, other bytes: V8 must refuse it rather than run it.
    const damaged = Buffer.alloc(good.length, 0x5a);
    await writeFile(file, damaged);
    const run = await sandbox.run(['tools', '--trust']);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toBe(clean.stdout);
    expect(run.stderr).toBe(clean.stderr);
    const rewritten = await readFile(await theCacheFile('tools'));
    expect(rewritten.equals(damaged)).toBe(false);
    expect(await sandbox.run(['tools', '--trust'])).toMatchObject({
      code: 0,
      stdout: clean.stdout,
    });
  });

  it("removes another build's cache when it writes its own", async () => {
    expect((await sandbox.run(['--version'])).code).toBe(0);
    const mine = await theCacheFile('version');
    const stale = join(cacheDir(), '0123456789abcdef-v20.0.0-x64-0-version.bin');
    await writeFile(stale, 'the cache of an older build');
    // What a `clat` killed between writing and renaming left (its pid no longer runs), and what
    // one running now is writing (this test's own pid stands for it): only the first goes.
    const gone = spawnSync(process.execPath, ['-e', '0']).pid;
    const killed = join(cacheDir(), `${basename(mine)}.${gone}.tmp`);
    const writing = join(cacheDir(), `${basename(mine)}.${process.pid}.tmp`);
    await writeFile(killed, 'half a cache');
    await writeFile(writing, 'a cache being written');
    // A refused cache is written again, and the write clears out other builds' files.
    await writeFile(mine, 'refused');
    const run = await sandbox.run(['--version']);
    expect(run.code, run.stderr).toBe(0);
    expect(existsSync(stale)).toBe(false);
    expect(existsSync(killed)).toBe(false);
    expect(existsSync(writing)).toBe(true);
    await rm(writing);
    expect(await theCacheFile('version')).toBe(mine);
    expect((await stat(mine)).size).toBeGreaterThan(10_000);
  });

  it('is off with NODE_DISABLE_COMPILE_CACHE, and never creates a CLAT home', async () => {
    const off = await sandbox.run(['tools', '--trust'], {
      env: { NODE_DISABLE_COMPILE_CACHE: '1' },
    });
    expect(off.code, off.stderr).toBe(0);
    expect(existsSync(join(sandbox.home, 'cache'))).toBe(false);
    const nowhere = join(sandbox.root, 'no-home-yet');
    const version = await sandbox.run(['--version'], { env: { CLAT_HOME: nowhere } });
    expect(version.code, version.stderr).toBe(0);
    expect(existsSync(nowhere)).toBe(false);
  });
});

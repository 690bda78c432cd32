import { existsSync, lstatSync, statSync } from 'node:fs';
import {
  chmod,
  mkdir,
  mkdtemp,
  readdir,
  readFile,
  rename,
  rm,
  symlink,
  utimes,
  writeFile,
} from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { codeCacheDir, dispatchedCommand, loadMainBundle } from './bin-main-bundle.js';

let root: string;
let home: string;
let bundle: string;
let env: NodeJS.ProcessEnv;

/** A CommonJS bundle as tsup.bin.config.ts writes it: source, then the build-id trailer. */
async function writeBundle(body: string, id = '00112233445566ff'): Promise<void> {
  await writeFile(bundle, `${body}\n//# clatBuildId=${id}\n`);
}

/**
 * The same bundle under another path. V8 keeps what an isolate compiled in memory, by source and
 * file name: a second load of the same file in this process would never read the cache at all.
 */
async function copyOfBundle(name: string): Promise<string> {
  const copy = join(root, name);
  await writeFile(copy, await readFile(bundle));
  return copy;
}

const BODY = [
  '"use strict";',
  'const { join } = require("node:path");',
  'exports.where = () => join(__dirname, "x");',
  'exports.twice = (n) => n * 2;',
  'exports.fail = () => { throw new Error("from line 5"); };',
].join('\n');

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'clat-code-cache-'));
  home = join(root, 'home');
  await mkdir(home);
  bundle = join(root, 'main.cjs');
  env = { CLAT_HOME: home };
});

afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

type Exports = { where(): string; twice(n: number): number; fail(): never };

/** The command of a `clat tools` run: the cache these loads read and write is `tools`'s. */
const TOOLS = 'tools';

describe('dispatchedCommand', () => {
  it('names the command as clat dispatches it, and nothing a file name could not hold', () => {
    for (const terminal of [() => true, () => false]) {
      expect(dispatchedCommand(['tools', '--json'], terminal)).toBe('tools');
      expect(dispatchedCommand(['plugin', 'install', 'x'], terminal)).toBe('plugin');
      expect(dispatchedCommand(['--version'], terminal)).toBe('version');
      expect(dispatchedCommand(['-V'], terminal)).toBe('version');
      expect(dispatchedCommand(['--help'], terminal)).toBe('help');
      expect(dispatchedCommand(['../../etc'], terminal)).toBe('other');
      expect(dispatchedCommand(['Tools'], terminal)).toBe('other');
      expect(dispatchedCommand(['x'.repeat(40)], terminal)).toBe('other');
    }
    // Bare `clat` is the session on a terminal and the help elsewhere; session flags without a
    // terminal are an unknown command.
    expect(dispatchedCommand([], () => true)).toBe('session');
    expect(dispatchedCommand(['--mode', 'plan'], () => true)).toBe('session');
    expect(dispatchedCommand([], () => false)).toBe('help');
    expect(dispatchedCommand(['--mode', 'plan'], () => false)).toBe('other');
    // A command never asks whether stdin is a terminal.
    const never = () => {
      throw new Error('asked');
    };
    expect(dispatchedCommand(['tools'], never)).toBe('tools');
  });
});

describe('loadMainBundle', () => {
  it('runs the bundle as a CommonJS module, with true line numbers', async () => {
    await writeBundle(BODY);
    const { exports } = loadMainBundle<Exports>(bundle, env, root, TOOLS);
    expect(exports.twice(21)).toBe(42);
    expect(exports.where()).toBe(join(root, 'x'));
    let stack = '';
    try {
      exports.fail();
    } catch (error) {
      stack = (error as Error).stack ?? '';
    }
    expect(stack).toContain(`${bundle}:5:`);
  });

  it('reads a bundle with non-ASCII text as UTF-8', async () => {
    await writeBundle(`${BODY}\nexports.dash = "—";`);
    expect(loadMainBundle<{ dash: string }>(bundle, env, root, TOOLS).exports.dash).toBe('—');
  });

  it('writes the cache after the first load and takes it on the next', async () => {
    await writeBundle(BODY);
    const first = loadMainBundle<Exports>(bundle, env, root, TOOLS);
    expect(first.cache).toBe('missing');
    first.exports.twice(1);
    first.saveCodeCache();
    const file = first.cacheFile as string;
    expect(file.startsWith(codeCacheDir(home))).toBe(true);
    expect(file).toContain(`00112233445566ff-${process.version}-${process.arch}-`);
    if (process.platform !== 'win32') expect(statSync(file).mode & 0o777).toBe(0o600);
    const second = loadMainBundle<Exports>(await copyOfBundle('second.cjs'), env, root, TOOLS);
    expect(second.cache).toBe('accepted');
    expect(second.cacheFile).toBe(file);
    expect(second.exports.twice(4)).toBe(8);
    // Nothing to write: the file stays as it was.
    const before = statSync(file).mtimeMs;
    second.saveCodeCache();
    expect(statSync(file).mtimeMs).toBe(before);
  });

  it('refuses a damaged cache, runs from source and writes a good one', async () => {
    await writeBundle(BODY);
    const first = loadMainBundle<Exports>(bundle, env, root, TOOLS);
    first.saveCodeCache();
    const file = first.cacheFile as string;
    const good = await readFile(file);
    const bad = Buffer.alloc(good.length, 7);
    await writeFile(file, bad);
    const damaged = loadMainBundle<Exports>(await copyOfBundle('damaged.cjs'), env, root, TOOLS);
    expect(damaged.cache).toBe('rejected');
    expect(damaged.exports.twice(5)).toBe(10);
    damaged.saveCodeCache();
    expect((await readFile(file)).equals(bad)).toBe(false);
    expect(loadMainBundle<Exports>(await copyOfBundle('again.cjs'), env, root, TOOLS).cache).toBe(
      'accepted',
    );
  });

  it('keeps one cache per command: each is written once and taken by that command only', async () => {
    await writeBundle(BODY);
    const tools = loadMainBundle<Exports>(bundle, env, root, TOOLS);
    tools.exports.twice(1);
    tools.saveCodeCache();
    // Another command does not take the cache `tools` left: it writes its own.
    const trust = loadMainBundle<Exports>(await copyOfBundle('trust.cjs'), env, root, 'trust');
    expect(trust.cache).toBe('missing');
    expect(trust.cacheFile).not.toBe(tools.cacheFile);
    expect(trust.cacheFile?.endsWith('-trust.bin')).toBe(true);
    trust.saveCodeCache();
    expect((await readdir(codeCacheDir(home))).sort()).toEqual(
      [tools.cacheFile, trust.cacheFile]
        .map((file) => (file as string).slice(codeCacheDir(home).length + 1))
        .sort(),
    );
    const again = loadMainBundle<Exports>(await copyOfBundle('again.cjs'), env, root, 'tools');
    expect([again.cache, again.cacheFile]).toEqual(['accepted', tools.cacheFile]);
    const trustAgain = loadMainBundle<Exports>(await copyOfBundle('t2.cjs'), env, root, 'trust');
    expect([trustAgain.cache, trustAgain.cacheFile]).toEqual(['accepted', trust.cacheFile]);
  });

  it('keeps at most 16 cache files, removing the oldest when it writes', async () => {
    await writeBundle(BODY);
    const first = loadMainBundle<Exports>(bundle, env, root, TOOLS);
    first.saveCodeCache();
    const dir = codeCacheDir(home);
    const prefix = (first.cacheFile as string).slice(dir.length + 1).replace(/tools\.bin$/, '');
    // The first cache written, then twenty mistyped commands' caches of this build, the older
    // the lower their number.
    const now = Date.now() / 1000;
    await utimes(first.cacheFile as string, now - 2000, now - 2000);
    for (let i = 0; i < 20; i++) {
      const file = join(dir, `${prefix}typo${i}.bin`);
      await writeFile(file, 'a cache');
      await utimes(file, now - 1000 + i, now - 1000 + i);
    }
    const latest = loadMainBundle<Exports>(await copyOfBundle('latest.cjs'), env, root, 'latest');
    latest.saveCodeCache();
    const left = (await readdir(dir)).sort();
    expect(left).toHaveLength(16);
    // The one just written and the fifteen newest before it: `tools`'s, the oldest, is gone.
    const expected = [`${prefix}latest.bin`];
    for (let i = 5; i < 20; i++) expected.push(`${prefix}typo${i}.bin`);
    expect(left).toEqual(expected.sort());
  });

  it("keys the cache by build id and removes another build's file when it writes", async () => {
    await writeBundle(BODY, 'aaaaaaaaaaaaaaaa');
    const old = loadMainBundle<Exports>(bundle, env, root, TOOLS);
    old.saveCodeCache();
    // A rebuild of the same length: V8 alone could take the old cache; the build id does not.
    await writeBundle(BODY.replace('n * 2', 'n + n'), 'bbbbbbbbbbbbbbbb');
    const rebuilt = loadMainBundle<Exports>(bundle, env, root, TOOLS);
    expect(rebuilt.cache).toBe('missing');
    expect(rebuilt.cacheFile).not.toBe(old.cacheFile);
    rebuilt.saveCodeCache();
    const files = await readdir(codeCacheDir(home));
    expect(files).toHaveLength(1);
    expect(files[0]?.startsWith('bbbbbbbbbbbbbbbb-')).toBe(true);
  });

  it('keeps one cache per set of Node options', async () => {
    await writeBundle(BODY);
    const plain = loadMainBundle<Exports>(bundle, env, root, TOOLS);
    const tuned = loadMainBundle<Exports>(
      bundle,
      { ...env, NODE_OPTIONS: '--max-old-space-size=4096' },
      root,
      TOOLS,
    );
    expect(tuned.cacheFile).not.toBe(plain.cacheFile);
  });

  it('is off without a build id, without a CLAT home, or when switched off', async () => {
    await writeFile(bundle, BODY);
    expect(loadMainBundle<Exports>(bundle, env, root, TOOLS).cache).toBe('off');
    await writeBundle(BODY);
    const noHome = { CLAT_HOME: join(root, 'not-yet') };
    const homeless = loadMainBundle<Exports>(bundle, noHome, root, TOOLS);
    expect(homeless.cache).toBe('off');
    homeless.saveCodeCache();
    expect(existsSync(join(root, 'not-yet'))).toBe(false);
    const off = loadMainBundle<Exports>(
      bundle,
      { ...env, NODE_DISABLE_COMPILE_CACHE: '1' },
      root,
      TOOLS,
    );
    expect(off.cache).toBe('off');
    off.saveCodeCache();
    expect(existsSync(join(home, 'cache'))).toBe(false);
  });

  it.skipIf(process.platform === 'win32')(
    'never reads nor writes a cache where another user could write, nor through a link',
    async () => {
      await writeBundle(BODY);
      const first = loadMainBundle<Exports>(bundle, env, root, TOOLS);
      first.saveCodeCache();
      const file = first.cacheFile as string;
      // A group- or world-writable cache directory: someone else could have planted the file.
      await chmod(codeCacheDir(home), 0o777);
      const open = loadMainBundle<Exports>(await copyOfBundle('open.cjs'), env, root, TOOLS);
      expect(open.cache).toBe('off');
      expect(open.cacheFile).toBeUndefined();
      await chmod(codeCacheDir(home), 0o700);
      // A link in place of the file is not followed: the load compiles from source.
      const elsewhere = join(root, 'elsewhere.bin');
      await rename(file, elsewhere);
      await symlink(elsewhere, file);
      const linked = loadMainBundle<Exports>(await copyOfBundle('linked.cjs'), env, root, TOOLS);
      expect(linked.cache).toBe('missing');
      expect(linked.exports.twice(2)).toBe(4);
      linked.saveCodeCache();
      expect(lstatSync(file).isFile()).toBe(true);
    },
  );

  it('loses nothing but the cache when it cannot write one', async () => {
    await writeBundle(BODY);
    // `cache` is a file, so `cache/code` cannot be made.
    await writeFile(join(home, 'cache'), 'not a directory');
    const load = loadMainBundle<Exports>(bundle, env, root, TOOLS);
    expect(() => load.saveCodeCache()).not.toThrow();
    expect(load.exports.twice(3)).toBe(6);
    expect(await readFile(join(home, 'cache'), 'utf8')).toBe('not a directory');
  });

  it('throws what loading from source throws: a missing bundle names its path', () => {
    expect(() => loadMainBundle(join(root, 'gone.cjs'), env, root, TOOLS)).toThrow(/gone\.cjs/);
  });
});

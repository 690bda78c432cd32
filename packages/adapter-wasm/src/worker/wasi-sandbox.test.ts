import {
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createSandboxWasi } from './wasi-sandbox.mjs';

// The sandbox exactly as jco's glue calls it: methods on the objects our imports return.
// biome-ignore lint/suspicious/noExplicitAny: the WASI surface is untyped JS.
type Any = any;

function thrown(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    return error;
  }
  return undefined;
}

describe('the deny-by-default WASI sandbox', () => {
  let root: string;
  let project: string;
  let outside: string;

  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'clat-wasi-'));
    project = join(root, 'project');
    outside = join(root, 'outside');
    mkdirSync(join(project, 'src'), { recursive: true });
    mkdirSync(outside);
    writeFileSync(join(project, 'src', 'a.txt'), 'alpha');
    writeFileSync(join(outside, 'secret.txt'), 'secret');
    symlinkSync(outside, join(project, 'escape'));
  });

  afterEach(() => rmSync(root, { recursive: true, force: true }));

  const preopen = (writable: boolean): Any => {
    const wasi = createSandboxWasi({
      preopens: [{ guestPath: 'project', hostPath: project, writable }],
    });
    const [[descriptor, name]] = (wasi['wasi:filesystem/preopens'] as Any).getDirectories();
    expect(name).toBe('project');
    return descriptor;
  };

  it('has no environment, arguments or cwd, and exit does not exit the host', () => {
    const wasi: Any = createSandboxWasi();
    expect(wasi['wasi:cli/environment'].getEnvironment()).toEqual([]);
    expect(wasi['wasi:cli/environment'].getArguments()).toEqual([]);
    expect(wasi['wasi:cli/environment'].initialCwd()).toBeUndefined();
    expect(() => wasi['wasi:cli/exit'].exit({ tag: 'ok' })).toThrow('guest called exit(0)');
  });

  it('provides no network interfaces at all', () => {
    const keys = Object.keys(createSandboxWasi());
    expect(
      keys.filter((key) => key.startsWith('wasi:sockets') || key.startsWith('wasi:http')),
    ).toEqual([]);
  });

  it('preopens nothing unless asked', () => {
    const wasi: Any = createSandboxWasi();
    expect(wasi['wasi:filesystem/preopens'].getDirectories()).toEqual([]);
  });

  it('captures stdout with a byte cap, and stdin is closed', () => {
    const seen: string[] = [];
    const wasi: Any = createSandboxWasi({
      onOutput: (s, t) => seen.push(`${s}:${t}`),
      outputLimitBytes: 8,
    });
    wasi['wasi:cli/stdout']
      .getStdout()
      .blockingWriteAndFlush(new TextEncoder().encode('hello world'));
    expect(seen).toEqual(['stdout:hello wo']);
    expect(thrown(() => wasi['wasi:cli/stdin'].getStdin().read(10n))).toEqual({ tag: 'closed' });
  });

  it('has working clocks and randomness', () => {
    const wasi: Any = createSandboxWasi();
    const a = wasi['wasi:clocks/monotonic-clock'].now();
    const b = wasi['wasi:clocks/monotonic-clock'].now();
    expect(b >= a).toBe(true);
    expect(Number(wasi['wasi:clocks/wall-clock'].now().seconds)).toBeGreaterThan(1_700_000_000);
    const bytes = wasi['wasi:random/random'].getRandomBytes(32n);
    expect(bytes.length).toBe(32);
    expect(wasi['wasi:random/random'].getRandomU64()).not.toBe(
      wasi['wasi:random/random'].getRandomU64(),
    );
  });

  it('reads inside a read-only preopen', () => {
    const dir = preopen(false);
    expect(dir.getType()).toBe('directory');
    expect(dir.getFlags()).toEqual({ read: true, write: false });
    const file = dir.openAt({ symlinkFollow: true }, 'src/a.txt', {}, { read: true });
    const stream = file.readViaStream(0n);
    expect(new TextDecoder().decode(stream.read(100n))).toBe('alpha');
    expect(thrown(() => stream.read(100n))).toEqual({ tag: 'closed' });
  });

  it('refuses every write in a read-only preopen', () => {
    const dir = preopen(false);
    expect(thrown(() => dir.openAt({}, 'new.txt', { create: true }, { write: true }))).toBe(
      'read-only',
    );
    expect(thrown(() => dir.openAt({}, 'src/a.txt', {}, { write: true }))).toBe('read-only');
    expect(thrown(() => dir.createDirectoryAt('made'))).toBe('read-only');
    expect(thrown(() => dir.unlinkFileAt('src/a.txt'))).toBe('read-only');
    const file = dir.openAt({ symlinkFollow: true }, 'src/a.txt', {}, { read: true });
    expect(thrown(() => file.writeViaStream(0n))).toBe('read-only');
    expect(readFileSync(join(project, 'src', 'a.txt'), 'utf8')).toBe('alpha');
  });

  it('never resolves a path outside the preopen: .., absolute, symlinks', () => {
    const dir = preopen(true);
    expect(thrown(() => dir.openAt({}, '../outside/secret.txt', {}, { read: true }))).toBe(
      'not-permitted',
    );
    expect(thrown(() => dir.openAt({}, join(outside, 'secret.txt'), {}, { read: true }))).toBe(
      'not-permitted',
    );
    expect(
      thrown(() => dir.openAt({ symlinkFollow: true }, 'escape/secret.txt', {}, { read: true })),
    ).toBe('not-permitted');
    expect(thrown(() => dir.openAt({}, 'escape/new.txt', { create: true }, { write: true }))).toBe(
      'not-permitted',
    );
  });

  describe('symlinks as the final component (issue 22 item 1)', () => {
    beforeEach(() => {
      symlinkSync(join(outside, 'secret.txt'), join(project, 'secret-link'));
      symlinkSync(join(outside, 'created.txt'), join(project, 'dangling'));
    });

    const readAll = (file: Any) => new TextDecoder().decode(file.read(100n, 0n)[0]);

    it('never reads or lists through a link, followed or not, read-only or writable', () => {
      for (const writable of [false, true]) {
        const dir = preopen(writable);
        for (const follow of [false, true]) {
          const read = thrown(() =>
            readAll(dir.openAt({ symlinkFollow: follow }, 'secret-link', {}, { read: true })),
          );
          expect(read).toBe(follow ? 'not-permitted' : 'loop');
          const list = thrown(() =>
            dir
              .openAt({ symlinkFollow: follow }, 'escape', { directory: true }, { read: true })
              .readDirectory()
              .readDirectoryEntry(),
          );
          // O_DIRECTORY | O_NOFOLLOW on a link fails with ENOTDIR on Linux: refused either way.
          expect(follow ? ['not-permitted'] : ['loop', 'not-directory']).toContain(list);
        }
      }
    });

    it('never writes, truncates or creates through a link, even with a write grant', () => {
      const dir = preopen(true);
      for (const follow of [false, true]) {
        expect(
          thrown(() =>
            dir
              .openAt({ symlinkFollow: follow }, 'secret-link', {}, { write: true })
              .write(new TextEncoder().encode('pwned'), 0n),
          ),
        ).toBe(follow ? 'not-permitted' : 'loop');
        expect(
          thrown(() =>
            dir.openAt(
              { symlinkFollow: follow },
              'secret-link',
              { truncate: true },
              { write: true },
            ),
          ),
        ).toBe(follow ? 'not-permitted' : 'loop');
        expect(
          thrown(() =>
            dir.openAt({ symlinkFollow: follow }, 'dangling', { create: true }, { write: true }),
          ),
        ).toBe('loop');
      }
      expect(readFileSync(join(outside, 'secret.txt'), 'utf8')).toBe('secret');
      expect(existsSync(join(outside, 'created.txt'))).toBe(false);
    });

    it('reports a link as a link without following it (stat-at, metadata-hash-at)', () => {
      const dir = preopen(false);
      expect(dir.statAt({}, 'secret-link').type).toBe('symbolic-link');
      expect(thrown(() => dir.statAt({ symlinkFollow: true }, 'secret-link'))).toBe(
        'not-permitted',
      );
      const link = lstatSync(join(project, 'secret-link'), { bigint: true });
      expect(dir.metadataHashAt({}, 'secret-link')).toEqual({ lower: link.ino, upper: link.dev });
      expect(thrown(() => dir.metadataHashAt({ symlinkFollow: true }, 'secret-link'))).toBe(
        'not-permitted',
      );
    });

    it('a descriptor keeps acting on the object it verified when its path becomes a link', () => {
      const dir = preopen(true);
      const file = dir.openAt({}, 'src/a.txt', {}, { read: true, write: true });
      const folder = dir.openAt({}, 'src', { directory: true }, { read: true });
      // Another process swaps both for links to the outside after the guest opened them.
      renameSync(join(project, 'src'), join(project, 'src-old'));
      symlinkSync(outside, join(project, 'src'));
      symlinkSync(join(outside, 'secret.txt'), join(outside, 'a.txt'));
      expect(thrown(() => readAll(file))).toBe('loop');
      expect(thrown(() => file.write(new TextEncoder().encode('pwned'), 0n))).toBe('loop');
      expect(thrown(() => file.stat())).not.toBeUndefined();
      expect(['loop', 'not-directory']).toContain(thrown(() => folder.readDirectory()));
      expect(readFileSync(join(outside, 'secret.txt'), 'utf8')).toBe('secret');
    });

    it('unlinks a link itself, never its target', () => {
      const dir = preopen(true);
      dir.unlinkFileAt('secret-link');
      expect(existsSync(join(project, 'secret-link'))).toBe(false);
      expect(readFileSync(join(outside, 'secret.txt'), 'utf8')).toBe('secret');
    });
  });

  it('writes inside a writable (granted) preopen', () => {
    const dir = preopen(true);
    const file = dir.openAt({}, 'out.txt', { create: true }, { read: true, write: true });
    file.writeViaStream(0n).blockingWriteAndFlush(new TextEncoder().encode('written'));
    expect(readFileSync(join(project, 'out.txt'), 'utf8')).toBe('written');
  });

  it('does not let a guest construct a descriptor for an arbitrary host path', () => {
    const wasi: Any = createSandboxWasi();
    const { Descriptor } = wasi['wasi:filesystem/types'];
    expect(() => new Descriptor('/etc')).toThrow('Descriptor cannot be constructed');
  });
});

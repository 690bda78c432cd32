import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
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

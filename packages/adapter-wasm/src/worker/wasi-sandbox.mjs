// Our own deny-by-default WASI 0.2 implementation for guests (preview2-shim is not a sandbox):
// no environment, no arguments, no cwd, no sockets or http (not provided at all), stdin closed,
// stdout/stderr captured through a callback with a byte cap, working clocks and randomness, and
// a filesystem that exposes only the configured preopens: read-only unless `writable`, with
// every path resolved inside its preopen (no `..`, no absolute paths, no symlink escapes).
// Plain ESM so a worker thread can load it without a TypeScript loader.
import { randomBytes, randomFillSync } from 'node:crypto';
import {
  closeSync,
  fstatSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readSync,
  realpathSync,
  renameSync,
  rmdirSync,
  statSync,
  truncateSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { isAbsolute, join, relative, resolve, sep } from 'node:path';

/** Thrown by `wasi:cli/exit`; the host treats it as a trap and recycles the instance. */
export class GuestExit extends Error {
  constructor(code) {
    super(`guest called exit(${code})`);
    this.name = 'GuestExit';
    this.exitCode = code;
  }
}

const sleepCell = new Int32Array(new SharedArrayBuffer(4));

function sleepNs(ns) {
  const ms = Number(ns / 1_000_000n);
  if (ms > 0) Atomics.wait(sleepCell, 0, 0, ms);
}

// wasi:io/error
class IoError {
  #message;
  constructor(message) {
    this.#message = message;
  }
  toDebugString() {
    return this.#message;
  }
}

// wasi:io/poll
class Pollable {
  #deadline;
  /** @param {bigint | undefined} deadline monotonic ns; undefined = always ready */
  constructor(deadline) {
    this.#deadline = deadline;
  }
  ready() {
    return this.#deadline === undefined || process.hrtime.bigint() >= this.#deadline;
  }
  block() {
    if (this.#deadline === undefined) return;
    const left = this.#deadline - process.hrtime.bigint();
    if (left > 0n) sleepNs(left);
  }
}

function poll(list) {
  if (list.length === 0) return new Uint32Array(0);
  for (;;) {
    const ready = [];
    for (let index = 0; index < list.length; index++) if (list[index].ready()) ready.push(index);
    if (ready.length > 0) return new Uint32Array(ready);
    sleepNs(1_000_000n);
  }
}

const closed = () => ({ tag: 'closed' });
const failed = (message) => ({ tag: 'last-operation-failed', val: new IoError(message) });

// wasi:io/streams
class InputStream {
  #read;
  /** @param {(len: number) => Uint8Array | undefined} read undefined at end of stream */
  constructor(read) {
    this.#read = read;
  }
  read(len) {
    const chunk = this.#read(Number(len));
    if (chunk === undefined) throw closed();
    return chunk;
  }
  blockingRead(len) {
    return this.read(len);
  }
  skip(len) {
    return BigInt(this.read(len).length);
  }
  blockingSkip(len) {
    return this.skip(len);
  }
  subscribe() {
    return new Pollable(undefined);
  }
}

const WRITE_CHUNK = 65_536n;

class OutputStream {
  #write;
  /** @param {(bytes: Uint8Array) => void} write throws a stream error to refuse */
  constructor(write) {
    this.#write = write;
  }
  checkWrite() {
    return WRITE_CHUNK;
  }
  write(contents) {
    this.#write(contents);
  }
  blockingWriteAndFlush(contents) {
    this.#write(contents);
  }
  flush() {}
  blockingFlush() {}
  writeZeroes(len) {
    this.#write(new Uint8Array(Number(len)));
  }
  blockingWriteZeroesAndFlush(len) {
    this.writeZeroes(len);
  }
  subscribe() {
    return new Pollable(undefined);
  }
  splice(source, len) {
    const chunk = source.read(len);
    this.#write(chunk);
    return BigInt(chunk.length);
  }
  blockingSplice(source, len) {
    return this.splice(source, len);
  }
}

class TerminalInput {}
class TerminalOutput {}

// wasi:filesystem/types. Errors are thrown as error-code strings, as jco expects.
const NANOS = 1_000_000_000n;

function timestamp(ms) {
  const ns = BigInt(Math.round(ms * 1_000_000));
  return { seconds: ns / NANOS, nanoseconds: Number(ns % NANOS) };
}

function typeOf(stats) {
  if (stats.isDirectory()) return 'directory';
  if (stats.isFile()) return 'regular-file';
  if (stats.isSymbolicLink()) return 'symbolic-link';
  if (stats.isFIFO()) return 'fifo';
  if (stats.isSocket()) return 'socket';
  if (stats.isCharacterDevice()) return 'character-device';
  if (stats.isBlockDevice()) return 'block-device';
  return 'unknown';
}

const ERRNO_CODES = {
  ENOENT: 'no-entry',
  EEXIST: 'exist',
  EACCES: 'access',
  EPERM: 'not-permitted',
  ENOTDIR: 'not-directory',
  EISDIR: 'is-directory',
  ENOTEMPTY: 'not-empty',
  EROFS: 'read-only',
  ELOOP: 'loop',
  ENAMETOOLONG: 'name-too-long',
  EINVAL: 'invalid',
  ENOSPC: 'insufficient-space',
  EBADF: 'bad-descriptor',
  EBUSY: 'busy',
  EXDEV: 'cross-device',
};

function fsCode(error) {
  if (typeof error === 'string') return error;
  return ERRNO_CODES[error?.code] ?? 'io';
}

function guarded(fn) {
  try {
    return fn();
  } catch (error) {
    throw fsCode(error);
  }
}

function isInside(root, target) {
  const rel = relative(root, target);
  return rel === '' || (!rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel));
}

class DirectoryEntryStream {
  #entries;
  constructor(entries) {
    this.#entries = entries;
  }
  readDirectoryEntry() {
    return this.#entries.shift();
  }
}

const CREATE = Symbol('create');

class Descriptor {
  #root;
  #path;
  #writable;
  #limits;

  /** Only the sandbox creates descriptors; a guest cannot construct one with a host path. */
  static _create(root, path, writable, limits) {
    return new Descriptor(CREATE, root, path, writable, limits);
  }

  constructor(token, root, path, writable, limits) {
    if (token !== CREATE) throw new TypeError('Descriptor cannot be constructed');
    this.#root = root;
    this.#path = path;
    this.#writable = writable;
    this.#limits = limits;
  }

  #requireWrite() {
    if (!this.#writable) throw 'read-only';
  }

  /** Resolves a guest-relative path inside this descriptor's preopen, or throws. */
  #resolve(path, followFinal) {
    if (typeof path !== 'string' || path.includes('\0')) throw 'invalid';
    if (isAbsolute(path)) throw 'not-permitted';
    const target = resolve(this.#path, path);
    if (!isInside(this.#root, target)) throw 'not-permitted';
    // Resolve symlinks on the existing part, so a link cannot lead outside the preopen.
    let probe = followFinal ? target : resolve(target, '..');
    const suffix = followFinal ? [] : [target.slice(probe.length + 1)];
    for (;;) {
      try {
        const real = realpathSync(probe);
        if (!isInside(this.#root, real)) throw 'not-permitted';
        return suffix.length === 0 ? real : join(real, ...suffix);
      } catch (error) {
        if (typeof error === 'string') throw error;
        if (error?.code !== 'ENOENT') throw fsCode(error);
        const parent = resolve(probe, '..');
        if (parent === probe) throw 'no-entry';
        suffix.unshift(probe.slice(parent.length + (parent.endsWith(sep) ? 0 : 1)));
        probe = parent;
      }
    }
  }

  getType() {
    return guarded(() => typeOf(lstatSync(this.#path)));
  }

  getFlags() {
    return { read: true, write: this.#writable };
  }

  stat() {
    return guarded(() => this.#stat(lstatSync(this.#path)));
  }

  #stat(stats) {
    return {
      type: typeOf(stats),
      linkCount: BigInt(stats.nlink),
      size: BigInt(stats.size),
      dataAccessTimestamp: timestamp(stats.atimeMs),
      dataModificationTimestamp: timestamp(stats.mtimeMs),
      statusChangeTimestamp: timestamp(stats.ctimeMs),
    };
  }

  statAt(pathFlags, path) {
    const target = this.#resolve(path, pathFlags?.symlinkFollow === true);
    return guarded(() => this.#stat(lstatSync(target)));
  }

  metadataHash() {
    return guarded(() => hashOf(statSync(this.#path)));
  }

  metadataHashAt(pathFlags, path) {
    const target = this.#resolve(path, pathFlags?.symlinkFollow === true);
    return guarded(() => hashOf(statSync(target)));
  }

  isSameObject(other) {
    return other instanceof Descriptor && other.#path === this.#path;
  }

  openAt(pathFlags, path, openFlags, flags) {
    const wantsWrite =
      flags?.write === true ||
      flags?.mutateDirectory === true ||
      openFlags?.create === true ||
      openFlags?.truncate === true;
    if (wantsWrite) this.#requireWrite();
    const target = this.#resolve(path, pathFlags?.symlinkFollow !== false);
    return guarded(() => {
      if (openFlags?.create === true) {
        const fd = openSync(target, openFlags.exclusive === true ? 'wx' : 'a');
        closeSync(fd);
      }
      const stats = statSync(target);
      if (openFlags?.directory === true && !stats.isDirectory()) throw 'not-directory';
      if (openFlags?.truncate === true) truncateSync(target, 0);
      return Descriptor._create(this.#root, target, this.#writable, this.#limits);
    });
  }

  readViaStream(offset) {
    let position = Number(offset);
    const path = this.#path;
    return new InputStream((len) => {
      const buffer = new Uint8Array(Math.min(len, 1 << 20));
      const fd = guarded(() => openSync(path, 'r'));
      try {
        const read = readSync(fd, buffer, 0, buffer.length, position);
        if (read === 0) return undefined;
        position += read;
        return buffer.subarray(0, read);
      } finally {
        closeSync(fd);
      }
    });
  }

  read(length, offset) {
    const buffer = new Uint8Array(Math.min(Number(length), 1 << 20));
    return guarded(() => {
      const fd = openSync(this.#path, 'r');
      try {
        const read = readSync(fd, buffer, 0, buffer.length, Number(offset));
        const size = fstatSync(fd).size;
        return [buffer.subarray(0, read), Number(offset) + read >= size];
      } finally {
        closeSync(fd);
      }
    });
  }

  #writer(startAt) {
    this.#requireWrite();
    let position = startAt;
    const path = this.#path;
    return new OutputStream((bytes) => {
      let fd;
      try {
        fd = openSync(path, 'r+');
        const at = position === 'append' ? fstatSync(fd).size : position;
        const written = writeSync(fd, bytes, 0, bytes.length, at);
        if (position !== 'append') position += written;
      } catch (error) {
        throw failed(`write failed: ${fsCode(error)}`);
      } finally {
        if (fd !== undefined) closeSync(fd);
      }
    });
  }

  writeViaStream(offset) {
    return this.#writer(Number(offset));
  }

  appendViaStream() {
    return this.#writer('append');
  }

  write(buffer, offset) {
    this.#requireWrite();
    return guarded(() => {
      const fd = openSync(this.#path, 'r+');
      try {
        return BigInt(writeSync(fd, buffer, 0, buffer.length, Number(offset)));
      } finally {
        closeSync(fd);
      }
    });
  }

  readDirectory() {
    return guarded(
      () =>
        new DirectoryEntryStream(
          readdirSync(this.#path, { withFileTypes: true }).map((entry) => ({
            type: typeOf(entry),
            name: entry.name,
          })),
        ),
    );
  }

  createDirectoryAt(path) {
    this.#requireWrite();
    const target = this.#resolve(path, false);
    guarded(() => mkdirSync(target));
  }

  removeDirectoryAt(path) {
    this.#requireWrite();
    const target = this.#resolve(path, false);
    guarded(() => rmdirSync(target));
  }

  unlinkFileAt(path) {
    this.#requireWrite();
    const target = this.#resolve(path, false);
    guarded(() => unlinkSync(target));
  }

  renameAt(oldPath, newDescriptor, newPath) {
    this.#requireWrite();
    if (!(newDescriptor instanceof Descriptor)) throw 'bad-descriptor';
    newDescriptor.#requireWrite();
    const from = this.#resolve(oldPath, false);
    const to = newDescriptor.#resolve(newPath, false);
    guarded(() => renameSync(from, to));
  }

  setSize() {
    this.#requireWrite();
    throw 'unsupported';
  }

  setTimes() {
    this.#requireWrite();
    throw 'unsupported';
  }

  setTimesAt() {
    this.#requireWrite();
    throw 'unsupported';
  }

  linkAt() {
    this.#requireWrite();
    throw 'not-permitted';
  }

  symlinkAt() {
    this.#requireWrite();
    throw 'not-permitted';
  }

  readlinkAt() {
    throw 'not-permitted';
  }

  advise() {}
  sync() {}
  syncData() {}
}

function hashOf(stats) {
  return { lower: BigInt(stats.ino), upper: BigInt(stats.dev) };
}

function filesystemErrorCode() {
  return undefined;
}

/**
 * Builds the WASI import object (unversioned interface keys, as jco's glue reads them).
 * @param {{
 *   preopens?: { guestPath: string, hostPath: string, writable: boolean }[],
 *   onOutput?: (stream: 'stdout' | 'stderr', text: string) => void,
 *   outputLimitBytes?: number,
 * }} options
 */
export function createSandboxWasi(options = {}) {
  const outputLimit = options.outputLimitBytes ?? 1024 * 1024;
  let outputUsed = 0;
  const decoder = new TextDecoder();
  const emit = (stream) => (bytes) => {
    if (outputUsed >= outputLimit) return;
    const slice = bytes.subarray(0, outputLimit - outputUsed);
    outputUsed += slice.length;
    options.onOutput?.(stream, decoder.decode(slice));
  };
  const stdout = new OutputStream(emit('stdout'));
  const stderr = new OutputStream(emit('stderr'));
  const stdin = new InputStream(() => undefined);
  const preopens = (options.preopens ?? []).map((preopen) => {
    const root = realpathSync(preopen.hostPath);
    return [Descriptor._create(root, root, preopen.writable, {}), preopen.guestPath];
  });
  const bigRandom = () => randomBytes(8).readBigUInt64LE();
  return {
    'wasi:cli/environment': {
      getEnvironment: () => [],
      getArguments: () => [],
      initialCwd: () => undefined,
    },
    'wasi:cli/exit': {
      exit: (status) => {
        throw new GuestExit(status?.tag === 'err' ? 1 : 0);
      },
    },
    'wasi:cli/stdin': { getStdin: () => stdin },
    'wasi:cli/stdout': { getStdout: () => stdout },
    'wasi:cli/stderr': { getStderr: () => stderr },
    'wasi:cli/terminal-input': { TerminalInput },
    'wasi:cli/terminal-output': { TerminalOutput },
    'wasi:cli/terminal-stdin': { getTerminalStdin: () => undefined },
    'wasi:cli/terminal-stdout': { getTerminalStdout: () => undefined },
    'wasi:cli/terminal-stderr': { getTerminalStderr: () => undefined },
    'wasi:clocks/monotonic-clock': {
      now: () => process.hrtime.bigint(),
      resolution: () => 1_000n,
      subscribeDuration: (ns) => new Pollable(process.hrtime.bigint() + ns),
      subscribeInstant: (at) => new Pollable(at),
    },
    'wasi:clocks/wall-clock': {
      now: () => timestamp(Date.now()),
      resolution: () => ({ seconds: 0n, nanoseconds: 1_000_000 }),
    },
    'wasi:random/random': {
      getRandomBytes: (len) => randomFillSync(new Uint8Array(Number(len))),
      getRandomU64: bigRandom,
    },
    'wasi:random/insecure': {
      getInsecureRandomBytes: (len) => randomFillSync(new Uint8Array(Number(len))),
      getInsecureRandomU64: bigRandom,
    },
    'wasi:random/insecure-seed': { insecureSeed: () => [bigRandom(), bigRandom()] },
    'wasi:io/error': { Error: IoError },
    'wasi:io/poll': { Pollable, poll },
    'wasi:io/streams': { InputStream, OutputStream },
    'wasi:filesystem/types': { Descriptor, DirectoryEntryStream, filesystemErrorCode },
    'wasi:filesystem/preopens': { getDirectories: () => preopens },
  };
}

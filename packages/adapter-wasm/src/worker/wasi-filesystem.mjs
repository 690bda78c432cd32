// wasi:filesystem for the sandbox: only the configured preopens, read-only unless writable, and
// every operation acts on the object that was resolved and verified inside the preopen.
//
// Why each step: a path checked with realpath and then used again by name can be swapped for a
// symlink in between, and a final component that is itself a symlink is followed by open/stat/
// readdir/truncate. So every operation reopens its object with O_NOFOLLOW (a final symlink is
// refused, or reported as a symlink when the guest asked not to follow), proves the opened fd
// still lies inside the preopen (Linux: the kernel's /proc/self/fd link; elsewhere realpath), and
// checks it is the same device and inode that was verified when the descriptor was opened.
// Directory operations go through a verified fd of the parent (/proc/self/fd/N/name on Linux).
// Plain ESM so a worker thread can load it without a TypeScript loader.
import {
  closeSync,
  constants,
  existsSync,
  fstatSync,
  ftruncateSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readlinkSync,
  readSync,
  realpathSync,
  renameSync,
  rmdirSync,
  statSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { failed, InputStream, OutputStream } from './wasi-io.mjs';

const NOFOLLOW = constants.O_NOFOLLOW ?? 0;
const DIRECTORY = constants.O_DIRECTORY ?? 0;
const NONBLOCK = constants.O_NONBLOCK ?? 0;
const { O_RDONLY, O_WRONLY, O_CREAT, O_EXCL } = constants;
const LINUX = process.platform === 'linux';
// Linux O_PATH (not in fs.constants): names an object for fstat and /proc/self/fd without read
// permission, without blocking on a FIFO, and, with O_NOFOLLOW, names a symlink itself.
const O_PATH = LINUX ? 0o10000000 : 0;
const PROC_FD = LINUX && existsSync('/proc/self/fd') ? '/proc/self/fd' : undefined;
/** Flags that identify an object without reading it. */
const PROBE = O_PATH !== 0 ? O_PATH : O_RDONLY | NONBLOCK;

const NANOS = 1_000_000_000n;

/** A WASI datetime from nanoseconds. */
export function datetimeOfNs(ns) {
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
  EMLINK: 'loop',
  ENAMETOOLONG: 'name-too-long',
  EINVAL: 'invalid',
  ENOSPC: 'insufficient-space',
  EBADF: 'bad-descriptor',
  EBUSY: 'busy',
  EXDEV: 'cross-device',
  EMFILE: 'insufficient-memory',
  ENFILE: 'insufficient-memory',
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

/** The real path of an open fd: the kernel's own answer on Linux, realpath of `path` elsewhere. */
function realPathOf(fd, path) {
  return PROC_FD === undefined ? realpathSync(path) : readlinkSync(`${PROC_FD}/${fd}`);
}

/** A path that reaches the object behind `fd` (Linux), so *at-style operations cannot be raced. */
function fdPath(fd, path) {
  return PROC_FD === undefined ? path : `${PROC_FD}/${fd}`;
}

/**
 * Opens `path` without following a final symlink and proves the fd names an object inside
 * `root`. Returns the fd and its real path; throws a WASI error code.
 */
function openInside(root, path, flags, mode) {
  const fd = openSync(path, flags | NOFOLLOW, mode);
  try {
    const real = realPathOf(fd, path);
    if (!isInside(root, real)) throw 'not-permitted';
    return { fd, real };
  } catch (error) {
    closeSync(fd);
    throw error;
  }
}

function identityOf(stats) {
  return `${stats.dev}:${stats.ino}`;
}

function statOf(stats) {
  return {
    type: typeOf(stats),
    linkCount: stats.nlink,
    size: stats.size,
    dataAccessTimestamp: datetimeOfNs(stats.atimeNs),
    dataModificationTimestamp: datetimeOfNs(stats.mtimeNs),
    statusChangeTimestamp: datetimeOfNs(stats.ctimeNs),
  };
}

function hashOf(stats) {
  return { lower: stats.ino, upper: stats.dev };
}

const fstatBig = (fd) => fstatSync(fd, { bigint: true });

export class DirectoryEntryStream {
  #entries;
  constructor(entries) {
    this.#entries = entries;
  }
  readDirectoryEntry() {
    return this.#entries.shift();
  }
}

const CREATE = Symbol('create');

export class Descriptor {
  #root;
  /** Real path of the object when it was opened and verified. */
  #path;
  /** `dev:ino` of the verified object; every later operation must find the same one. */
  #identity;
  #writable;

  /** Only the sandbox creates descriptors; a guest cannot construct one with a host path. */
  static _create(root, path, identity, writable) {
    return new Descriptor(CREATE, root, path, identity, writable);
  }

  constructor(token, root, path, identity, writable) {
    if (token !== CREATE) throw new TypeError('Descriptor cannot be constructed');
    this.#root = root;
    this.#path = path;
    this.#identity = identity;
    this.#writable = writable;
  }

  #requireWrite() {
    if (!this.#writable) throw 'read-only';
  }

  /** Reopens this descriptor's object, verified: inside the preopen, same device and inode. */
  #withFd(flags, fn) {
    return guarded(() => {
      const { fd } = openInside(this.#root, this.#path, flags);
      try {
        const stats = fstatBig(fd);
        if (identityOf(stats) !== this.#identity) throw 'bad-descriptor';
        return fn(fd, stats);
      } finally {
        closeSync(fd);
      }
    });
  }

  /** Runs `fn(parentPath, name)` with the verified parent directory of `target`. */
  #inParent(target, fn) {
    return guarded(() => {
      const { fd } = openInside(this.#root, dirname(target), O_RDONLY | DIRECTORY);
      try {
        return fn(fdPath(fd, dirname(target)), basename(target));
      } finally {
        closeSync(fd);
      }
    });
  }

  /**
   * Resolves a guest-relative path inside this descriptor's preopen, or throws. With
   * `followFinal`, symlinks are resolved all the way and the result must stay inside; without
   * it, only the parent is resolved and the final component is returned as named (the caller
   * opens it with O_NOFOLLOW, so a symlink there is never followed).
   */
  #resolve(path, followFinal) {
    if (typeof path !== 'string' || path.includes('\0')) throw 'invalid';
    if (isAbsolute(path)) throw 'not-permitted';
    const target = resolve(this.#path, path);
    if (!isInside(this.#root, target)) throw 'not-permitted';
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

  /** fstat of what `path` names (a final symlink reported as itself unless `follow`). */
  #statAt(pathFlags, path) {
    const follow = pathFlags?.symlinkFollow === true;
    const target = this.#resolve(path, follow);
    return guarded(() => {
      let opened;
      try {
        opened = openInside(this.#root, target, PROBE);
      } catch (error) {
        // Without O_PATH (not Linux) a symlink cannot be opened itself; it is inside (its parent
        // was verified), so report it as a link without following it.
        if (!follow && error?.code === 'ELOOP') return lstatSync(target, { bigint: true });
        throw error;
      }
      try {
        return fstatBig(opened.fd);
      } finally {
        closeSync(opened.fd);
      }
    });
  }

  getType() {
    return this.#withFd(PROBE, (_fd, stats) => typeOf(stats));
  }

  getFlags() {
    return { read: true, write: this.#writable };
  }

  stat() {
    return this.#withFd(PROBE, (_fd, stats) => statOf(stats));
  }

  statAt(pathFlags, path) {
    return statOf(this.#statAt(pathFlags, path));
  }

  metadataHash() {
    return this.#withFd(PROBE, (_fd, stats) => hashOf(stats));
  }

  metadataHashAt(pathFlags, path) {
    return hashOf(this.#statAt(pathFlags, path));
  }

  isSameObject(other) {
    return other instanceof Descriptor && other.#identity === this.#identity;
  }

  openAt(pathFlags, path, openFlags, flags) {
    const create = openFlags?.create === true;
    const truncate = openFlags?.truncate === true;
    const wantsWrite =
      flags?.write === true || flags?.mutateDirectory === true || create || truncate;
    if (wantsWrite) this.#requireWrite();
    // A final symlink is followed only when asked, and only to a target inside the preopen; a
    // dangling link resolves to the link itself, which O_NOFOLLOW then refuses (never created).
    const target = this.#resolve(path, pathFlags?.symlinkFollow === true);
    let openMode = PROBE;
    if (create) openMode = O_WRONLY | O_CREAT | (openFlags.exclusive === true ? O_EXCL : 0);
    else if (truncate) openMode = O_WRONLY;
    if (openFlags?.directory === true) {
      if (create || truncate) throw 'invalid';
      openMode |= DIRECTORY;
    }
    return guarded(() => {
      const { fd, real } = openInside(this.#root, target, openMode, 0o644);
      try {
        const stats = fstatBig(fd);
        // O_PATH | O_NOFOLLOW opens a final symlink itself instead of failing: refuse it here.
        if (stats.isSymbolicLink()) throw 'loop';
        if (openFlags?.directory === true && !stats.isDirectory()) throw 'not-directory';
        if (truncate) ftruncateSync(fd, 0);
        return Descriptor._create(this.#root, real, identityOf(stats), this.#writable);
      } finally {
        closeSync(fd);
      }
    });
  }

  readViaStream(offset) {
    let position = Number(offset);
    return new InputStream((len) => {
      const buffer = new Uint8Array(Math.min(len, 1 << 20));
      const read = this.#withFd(O_RDONLY | NONBLOCK, (fd) =>
        readSync(fd, buffer, 0, buffer.length, position),
      );
      if (read === 0) return undefined;
      position += read;
      return buffer.subarray(0, read);
    });
  }

  read(length, offset) {
    const buffer = new Uint8Array(Math.min(Number(length), 1 << 20));
    return this.#withFd(O_RDONLY | NONBLOCK, (fd, stats) => {
      const read = readSync(fd, buffer, 0, buffer.length, Number(offset));
      return [buffer.subarray(0, read), Number(offset) + read >= Number(stats.size)];
    });
  }

  #writer(startAt) {
    this.#requireWrite();
    let position = startAt;
    return new OutputStream((bytes) => {
      try {
        this.#withFd(O_WRONLY | NONBLOCK, (fd, stats) => {
          const at = position === 'append' ? Number(stats.size) : position;
          const written = writeSync(fd, bytes, 0, bytes.length, at);
          if (position !== 'append') position += written;
        });
      } catch (error) {
        throw failed(`write failed: ${fsCode(error)}`);
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
    return this.#withFd(O_WRONLY | NONBLOCK, (fd) =>
      BigInt(writeSync(fd, buffer, 0, buffer.length, Number(offset))),
    );
  }

  setSize(size) {
    this.#requireWrite();
    this.#withFd(O_WRONLY | NONBLOCK, (fd) => ftruncateSync(fd, Number(size)));
  }

  readDirectory() {
    return this.#withFd(
      O_RDONLY | DIRECTORY,
      (fd) =>
        new DirectoryEntryStream(
          readdirSync(fdPath(fd, this.#path), { withFileTypes: true }).map((entry) => ({
            type: typeOf(entry),
            name: entry.name,
          })),
        ),
    );
  }

  createDirectoryAt(path) {
    this.#requireWrite();
    const target = this.#resolve(path, false);
    this.#inParent(target, (parent, name) => mkdirSync(join(parent, name)));
  }

  removeDirectoryAt(path) {
    this.#requireWrite();
    const target = this.#resolve(path, false);
    this.#inParent(target, (parent, name) => rmdirSync(join(parent, name)));
  }

  unlinkFileAt(path) {
    this.#requireWrite();
    const target = this.#resolve(path, false);
    // unlink removes a symlink itself, never its target.
    this.#inParent(target, (parent, name) => unlinkSync(join(parent, name)));
  }

  renameAt(oldPath, newDescriptor, newPath) {
    this.#requireWrite();
    if (!(newDescriptor instanceof Descriptor)) throw 'bad-descriptor';
    newDescriptor.#requireWrite();
    const from = this.#resolve(oldPath, false);
    const to = newDescriptor.#resolve(newPath, false);
    this.#inParent(from, (fromParent, fromName) =>
      newDescriptor.#inParent(to, (toParent, toName) =>
        renameSync(join(fromParent, fromName), join(toParent, toName)),
      ),
    );
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

export function filesystemErrorCode() {
  return undefined;
}

/**
 * The preopened descriptors, each verified to be a directory at its real path.
 * @param {{ guestPath: string, hostPath: string, writable: boolean }[]} preopens
 */
export function createPreopens(preopens) {
  return preopens.map((preopen) => {
    const root = realpathSync(preopen.hostPath);
    const identity = identityOf(statSync(root, { bigint: true }));
    return [Descriptor._create(root, root, identity, preopen.writable), preopen.guestPath];
  });
}

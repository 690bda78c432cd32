// wasi:io for the sandbox: errors, pollables that sleep with Atomics.wait, and streams backed by
// callbacks (the filesystem and stdio build theirs on these). Plain ESM for the worker thread.

const sleepCell = new Int32Array(new SharedArrayBuffer(4));

export function sleepNs(ns) {
  const ms = Number(ns / 1_000_000n);
  if (ms > 0) Atomics.wait(sleepCell, 0, 0, ms);
}

// wasi:io/error
export class IoError {
  #message;
  constructor(message) {
    this.#message = message;
  }
  toDebugString() {
    return this.#message;
  }
}

// wasi:io/poll
export class Pollable {
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

export function poll(list) {
  if (list.length === 0) return new Uint32Array(0);
  for (;;) {
    const ready = [];
    for (let index = 0; index < list.length; index++) if (list[index].ready()) ready.push(index);
    if (ready.length > 0) return new Uint32Array(ready);
    sleepNs(1_000_000n);
  }
}

export const closed = () => ({ tag: 'closed' });
export const failed = (message) => ({ tag: 'last-operation-failed', val: new IoError(message) });

// wasi:io/streams
export class InputStream {
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

export class OutputStream {
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

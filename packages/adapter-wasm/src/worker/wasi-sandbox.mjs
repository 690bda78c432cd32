// Our own deny-by-default WASI 0.2 implementation for guests (preview2-shim is not a sandbox):
// no environment, no arguments, no cwd, no sockets or http (not provided at all), stdin closed,
// stdout/stderr captured through a callback with a byte cap, working clocks and randomness, and
// a filesystem that exposes only the configured preopens (wasi-filesystem.mjs): read-only unless
// `writable`, every path resolved inside its preopen, and every operation acting on the object
// that was verified there (no `..`, no absolute paths, no symlink escapes).
// Plain ESM so a worker thread can load it without a TypeScript loader.
import { randomBytes, randomFillSync } from 'node:crypto';
import {
  createPreopens,
  Descriptor,
  DirectoryEntryStream,
  filesystemErrorCode,
} from './wasi-filesystem.mjs';
import { InputStream, IoError, OutputStream, Pollable, poll } from './wasi-io.mjs';

/** Thrown by `wasi:cli/exit`; the host treats it as a trap and recycles the instance. */
export class GuestExit extends Error {
  constructor(code) {
    super(`guest called exit(${code})`);
    this.name = 'GuestExit';
    this.exitCode = code;
  }
}

class TerminalInput {}
class TerminalOutput {}

const NANOS = 1_000_000_000n;

function timestamp(ms) {
  const ns = BigInt(Math.round(ms * 1_000_000));
  return { seconds: ns / NANOS, nanoseconds: Number(ns % NANOS) };
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
  const preopens = createPreopens(options.preopens ?? []);
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

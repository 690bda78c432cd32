/**
 * The component file itself: reading it within the size limit, and its SHA-256, from its source
 * record when the file's signature still matches (source-record.ts) or hashed from its bytes.
 * Shared by the preparation (component-cache.ts) and by a mount that lists tools recorded for
 * the digest (tool-list-memo.ts) without preparing anything.
 * @module
 */
import type { BigIntStats } from 'node:fs';
import { type FileHandle, open, stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { parseSha256 } from '@clat/kernel';
import { sha256Hex } from './digest.js';
import { WasmError, WasmErrorCode } from './errors.js';
import {
  isQuiescent,
  readSourceRecord,
  recordDigest,
  recordedDigest,
  statSignature,
} from './source-record.js';

/** Largest component accepted, checked before the file is read. */
export const MAX_COMPONENT_BYTES = 32 * 1024 * 1024;

export interface PrepareComponentOptions {
  componentPath: string;
  /** Pinned digest (`sha256:` prefix optional); a mismatch refuses the component. */
  sha256?: string | undefined;
  cacheDir: string;
  /** The manifest MAC key file. Default: `<cacheDir>.key`, outside the cache directory. */
  keyPath?: string | undefined;
  /**
   * The memory limit the prepared component will be compiled under. Given, core modules this
   * process already compiled under it for the same cache entry are not read again
   * (`PreparedComponent.compiled`), and the preparation must be compiled under this limit.
   */
  memoryLimitBytes?: number | undefined;
}

function tooLarge(path: string, size: bigint): WasmError {
  return new WasmError(
    WasmErrorCode.WASM_COMPONENT_TOO_LARGE,
    `component ${path} is ${size} bytes, over the ${MAX_COMPONENT_BYTES}-byte limit`,
  );
}

function unreadable(path: string, error: unknown): WasmError {
  return new WasmError(
    WasmErrorCode.WASM_COMPONENT_UNREADABLE,
    `component ${path} cannot be read: ${(error as NodeJS.ErrnoException).code ?? String(error)}`,
    { cause: error },
  );
}

function pinMismatch(path: string, sha256: string, pin: string): WasmError {
  const pinned = parseSha256(pin);
  return new WasmError(
    WasmErrorCode.WASM_DIGEST_MISMATCH,
    `component ${path} has SHA-256 ${sha256}, but ${pinned === undefined ? `the pin ${JSON.stringify(pin)} is not a SHA-256 digest` : `${pinned} is pinned`}`,
    { data: { actual: sha256, pinned: pin } },
  );
}

/**
 * The component's bytes and its stat before reading; `trusted` when that signature vouches for
 * the bytes: unchanged through the read, and quiescent before it (see source-record.ts).
 */
export interface ComponentRead {
  bytes: Uint8Array;
  stats: BigIntStats;
  trusted: boolean;
}

async function readComponent(path: string): Promise<ComponentRead> {
  let handle: FileHandle;
  try {
    handle = await open(path, 'r');
  } catch (error) {
    throw unreadable(path, error);
  }
  try {
    const checkedAt = Date.now();
    const stats = await handle.stat({ bigint: true });
    if (stats.size > BigInt(MAX_COMPONENT_BYTES)) throw tooLarge(path, stats.size);
    const bytes = await readSized(handle, Number(stats.size));
    const after = await handle.stat({ bigint: true });
    const unchanged = statSignature(stats) === statSignature(after);
    return { bytes, stats, trusted: unchanged && isQuiescent(stats, checkedAt) };
  } catch (error) {
    if (error instanceof WasmError) throw error;
    throw unreadable(path, error);
  } finally {
    await handle.close();
  }
}

/**
 * The first `size` bytes of an open file, normally in one read. A file that shrank meanwhile
 * comes back short, one that grew is cut at `size`: either way its digest tells.
 */
export async function readSized(handle: FileHandle, size: number): Promise<Uint8Array> {
  const bytes = new Uint8Array(size);
  let offset = 0;
  while (offset < size) {
    const { bytesRead } = await handle.read(bytes, offset, size - offset, offset);
    if (bytesRead === 0) break;
    offset += bytesRead;
  }
  return offset === size ? bytes : bytes.subarray(0, offset);
}

/**
 * The digest the component's source record gives it, if the record is authentic, names the
 * file's current signature and agrees with the pin; undefined otherwise. A pin that disagrees
 * with the record is judged on freshly hashed bytes, never on the record.
 */
export async function recordedComponentDigest(
  options: PrepareComponentOptions,
  keying: Promise<Buffer>,
): Promise<string | undefined> {
  const path = resolve(options.componentPath);
  // Each a separate read: together, one wait instead of three.
  const [key, stats, record] = await Promise.all([
    keying,
    stat(path, { bigint: true }).catch(() => undefined),
    readSourceRecord(options.cacheDir, path),
  ]);
  if (stats === undefined || stats.size > BigInt(MAX_COMPONENT_BYTES)) return undefined;
  const sha256 = recordedDigest(record, key, path, statSignature(stats));
  if (sha256 === undefined) return undefined;
  if (options.sha256 !== undefined && parseSha256(options.sha256) !== sha256) return undefined;
  return sha256;
}

/**
 * Reads the component and hashes its bytes; a pin that differs throws WASM_DIGEST_MISMATCH.
 * The caller records the digest (`recordDigest`) when `read.trusted`.
 */
export async function readPinnedComponent(
  options: PrepareComponentOptions,
): Promise<{ read: ComponentRead; sha256: string }> {
  const read = await readComponent(options.componentPath);
  const sha256 = sha256Hex(read.bytes);
  if (options.sha256 !== undefined && parseSha256(options.sha256) !== sha256) {
    throw pinMismatch(options.componentPath, sha256, options.sha256);
  }
  return { read, sha256 };
}

/**
 * The component's SHA-256 without preparing it: from its source record, else read and hashed
 * (and recorded when the file is quiescent). A pin that differs throws WASM_DIGEST_MISMATCH.
 */
export async function componentDigest(
  options: PrepareComponentOptions,
  keying: Promise<Buffer>,
): Promise<string> {
  const recorded = await recordedComponentDigest(options, keying);
  if (recorded !== undefined) return recorded;
  const { read, sha256 } = await readPinnedComponent(options);
  if (read.trusted) {
    const path = resolve(options.componentPath);
    await recordDigest(options.cacheDir, await keying, path, read.stats, sha256);
  }
  return sha256;
}

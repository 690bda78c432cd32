/**
 * Remembers the SHA-256 of a component file by its stat signature, so a load whose component is
 * unchanged need not read and hash its 12 MB again. A record maps (path, device, inode, size,
 * mtime ns, ctime ns) to the digest computed from the bytes, authenticated with the cache key.
 *
 * Why this keeps the integrity guarantees (the pin included):
 * - The record is only a shortcut to a digest. What runs is always the cache entry of that
 *   digest, itself authenticated by its MAC'd manifest: a record never makes us run bytes read
 *   from the component file without hashing them. So the worst a stale record can do is run the
 *   verified transpile of the bytes that were hashed, and a pin is compared with that digest.
 * - Changing a file's content changes its ctime, and no unprivileged process can set ctime
 *   (utimes sets mtime, and ctime to now). Replacing the file gives another inode or ctime. An
 *   attacker with write access to the component but not to the cache cannot keep the signature.
 * - A file still being written could be hashed mid-write and keep the same ctime if the writer
 *   finishes within one clock tick (the "racily clean" problem of git's index). A record is
 *   therefore written only for a file whose ctime is older than {@link QUIESCENT_NS} and whose
 *   signature did not change while it was read; any later write then gets a newer ctime.
 * - Records live in `<cache>/sources/` (0700 directory, 0600 files) and carry an HMAC under the
 *   cache key (kept outside the cache directory), so whoever can write the cache but not read
 *   the key cannot point a path at another component's entry.
 * - A pin that differs from the recorded digest is never answered from the record: the file is
 *   read and hashed again, and the pin is enforced against those bytes.
 * @module
 */
import type { BigIntStats } from 'node:fs';
import { mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { writeFileAtomic } from '@clat/node-files';
import { macMatches, manifestMac } from './cache-key.js';
import { sha256Hex } from './digest.js';

/** A file must be this old (ctime) before its signature is trusted: longer than any FS tick. */
export const QUIESCENT_NS = 2_000_000_000n;
const RECORD_VERSION = 'clat-wasm-source/1';
const SOURCES_DIR = 'sources';

/** The stat fields that change whenever the file's content or identity does. */
export function statSignature(stats: BigIntStats): string {
  return `${stats.dev}:${stats.ino}:${stats.size}:${stats.mtimeNs}:${stats.ctimeNs}`;
}

function recordPath(cacheDir: string, componentPath: string): string {
  return join(cacheDir, SOURCES_DIR, `${sha256Hex(new TextEncoder().encode(componentPath))}.json`);
}

function recordMac(key: Buffer, componentPath: string, signature: string, sha256: string): string {
  return manifestMac(key, [RECORD_VERSION, componentPath, signature, sha256]);
}

interface SourceRecord {
  path: string;
  signature: string;
  sha256: string;
  mac: string;
}

/** The record of `componentPath` (an absolute path) as stored, or undefined when unreadable. */
export async function readSourceRecord(cacheDir: string, componentPath: string): Promise<unknown> {
  try {
    return JSON.parse(await readFile(recordPath(cacheDir, componentPath), 'utf8'));
  } catch {
    return undefined;
  }
}

/**
 * The digest a stored record (from {@link readSourceRecord}) gives `componentPath` if it is
 * authenticated by `key` and names exactly this signature; undefined otherwise (absent, stale,
 * forged or unreadable). Read and checked apart, so the read overlaps the key's and the stat.
 */
export function recordedDigest(
  stored: unknown,
  key: Buffer,
  componentPath: string,
  signature: string,
): string | undefined {
  const record = stored as SourceRecord | null | undefined;
  if (
    record === null ||
    typeof record !== 'object' ||
    record.path !== componentPath ||
    record.signature !== signature ||
    typeof record.sha256 !== 'string' ||
    !/^[0-9a-f]{64}$/.test(record.sha256)
  ) {
    return undefined;
  }
  return macMatches(recordMac(key, componentPath, signature, record.sha256), record.mac)
    ? record.sha256
    : undefined;
}

/**
 * Whether a file whose stat was taken after `checkedAtMs` (wall clock) had already been unchanged
 * for {@link QUIESCENT_NS}: any write after that stat then gets a newer ctime.
 */
export function isQuiescent(stats: BigIntStats, checkedAtMs: number): boolean {
  return BigInt(checkedAtMs) * 1_000_000n - stats.ctimeNs >= QUIESCENT_NS;
}

/**
 * Records the digest of bytes read under `stats`; the caller checked that the signature held
 * through the read and that the file was quiescent ({@link isQuiescent}) before it. Best
 * effort: a failure only costs the next load a hash.
 */
export async function recordDigest(
  cacheDir: string,
  key: Buffer,
  componentPath: string,
  stats: BigIntStats,
  sha256: string,
): Promise<void> {
  const signature = statSignature(stats);
  const record: SourceRecord = {
    path: componentPath,
    signature,
    sha256,
    mac: recordMac(key, componentPath, signature, sha256),
  };
  try {
    await mkdir(join(cacheDir, SOURCES_DIR), { recursive: true, mode: 0o700 });
    // 0600, renamed into place; not synced: a lost record only costs hashing the component again.
    await writeFileAtomic(recordPath(cacheDir, componentPath), `${JSON.stringify(record)}\n`, {
      mode: 0o600,
      sync: false,
    });
  } catch {
    // Not recorded: the next load hashes the component again.
  }
}

/**
 * Builds npm package tarballs (gzipped ustar, every path under `package/`) from a directory, the
 * way `npm pack` lays them out, without running npm: fast and deterministic for test fixtures.
 * @module
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';

export interface TarEntry {
  /** Path inside the tarball, `/`-separated (e.g. `package/dist/index.js`). */
  path: string;
  body: Buffer;
  mode: number;
}

const BLOCK = 512;

function octal(value: number, width: number): string {
  return `${value.toString(8).padStart(width - 1, '0')}\0`;
}

/** Splits a path into ustar `prefix` (≤155 bytes) and `name` (≤100 bytes) at a `/`. */
function splitPath(path: string): { prefix: string; name: string } {
  if (Buffer.byteLength(path) <= 100) return { prefix: '', name: path };
  const parts = path.split('/');
  for (let i = 1; i < parts.length; i++) {
    const prefix = parts.slice(0, i).join('/');
    const name = parts.slice(i).join('/');
    if (Buffer.byteLength(prefix) <= 155 && Buffer.byteLength(name) <= 100) return { prefix, name };
  }
  throw new Error(`tar path ${JSON.stringify(path)} does not fit a ustar header`);
}

function header(entry: TarEntry): Buffer {
  const block = Buffer.alloc(BLOCK);
  const { prefix, name } = splitPath(entry.path);
  block.write(name, 0, 100, 'utf8');
  block.write(octal(entry.mode & 0o7777, 8), 100, 8, 'ascii');
  block.write(octal(0, 8), 108, 8, 'ascii');
  block.write(octal(0, 8), 116, 8, 'ascii');
  block.write(octal(entry.body.length, 12), 124, 12, 'ascii');
  // npm pack stamps 1985-10-26 so tarballs are reproducible; so do we.
  block.write(octal(499162500, 12), 136, 12, 'ascii');
  block.fill(0x20, 148, 156);
  block.write('0', 156, 1, 'ascii');
  block.write('ustar\u000000', 257, 8, 'ascii');
  block.write(prefix, 345, 155, 'utf8');
  let sum = 0;
  for (const byte of block) sum += byte;
  block.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148, 8, 'ascii');
  return block;
}

/** A gzipped tarball of `entries` (in the given order). */
export function createTarball(entries: readonly TarEntry[]): Buffer {
  const chunks: Buffer[] = [];
  for (const entry of entries) {
    chunks.push(header(entry), entry.body);
    const pad = (BLOCK - (entry.body.length % BLOCK)) % BLOCK;
    if (pad > 0) chunks.push(Buffer.alloc(pad));
  }
  chunks.push(Buffer.alloc(BLOCK * 2));
  return gzipSync(Buffer.concat(chunks), { level: 9 });
}

/**
 * The files of a package directory as tar entries under `package/`, skipping nested
 * `node_modules` (dependencies come from the registry, as with a published package). `transform`
 * may rewrite a file (e.g. package.json with another version).
 */
export function packageEntries(
  dir: string,
  transform?: (relative: string, body: Buffer) => Buffer,
): TarEntry[] {
  const entries: TarEntry[] = [];
  const walk = (relative: string): void => {
    const absolute = relative === '' ? dir : join(dir, relative);
    for (const name of readdirSync(absolute).sort()) {
      if (relative === '' && name === 'node_modules') continue;
      const child = relative === '' ? name : `${relative}/${name}`;
      const stat = statSync(join(dir, child));
      if (stat.isDirectory()) {
        if (name === 'node_modules') continue;
        walk(child);
      } else if (stat.isFile()) {
        let body: Buffer = readFileSync(join(dir, child));
        if (transform !== undefined) body = transform(child, body);
        entries.push({ path: `package/${child}`, body, mode: stat.mode & 0o111 ? 0o755 : 0o644 });
      }
    }
  };
  walk('');
  return entries;
}

/** `sha512-<base64>` (npm `dist.integrity`) and the hex sha1 (`dist.shasum`) of a tarball. */
export function tarballDigests(tarball: Buffer): { integrity: string; shasum: string } {
  return {
    integrity: `sha512-${createHash('sha512').update(tarball).digest('base64')}`,
    shasum: createHash('sha1').update(tarball).digest('hex'),
  };
}

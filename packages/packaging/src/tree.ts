/**
 * Package tree walk and the `clat-package-tree-v1` digest: regular files only (no symlinks or
 * special files), UTF-8 names, bounded depth, count and size, no-follow opens with the size
 * rechecked, paths sorted in byte order.
 * @module
 */
import { createHash } from 'node:crypto';
import { constants, type Dirent } from 'node:fs';
import { lstat, open, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { PackagingError } from './errors.js';
import { PACKAGE_LIMITS } from './limits.js';

export const TREE_DIGEST_DOMAIN = 'clat-package-tree-v1';

export interface TreeFile {
  /** Package-relative, `/`-separated. */
  path: string;
  size: number;
  /** Lowercase hex SHA-256 of the content. */
  sha256: string;
  /** Any execute bit set. */
  executable: boolean;
}

export interface PackageTree {
  root: string;
  /** Sorted by path in byte order. */
  files: TreeFile[];
  totalBytes: number;
  /** `clat-package-tree-v1` digest, lowercase hex. */
  treeSha256: string;
}

function u64be(value: number): Buffer {
  const buffer = Buffer.alloc(8);
  buffer.writeBigUInt64BE(BigInt(value));
  return buffer;
}

/** Byte-order comparison of two paths (what the digest and containers sort by). */
export function comparePaths(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
}

/** The `clat-package-tree-v1` digest of already-hashed files (sorted here). */
export function treeDigest(files: readonly Pick<TreeFile, 'path' | 'size' | 'sha256'>[]): string {
  const hash = createHash('sha256');
  hash.update(`${TREE_DIGEST_DOMAIN}\0`);
  for (const file of [...files].sort((a, b) => comparePaths(a.path, b.path))) {
    const path = Buffer.from(file.path, 'utf8');
    hash.update(u64be(path.length));
    hash.update(path);
    hash.update(u64be(file.size));
    hash.update(file.sha256, 'ascii');
  }
  return hash.digest('hex');
}

/** Hashes one regular file opened without following symlinks; the size is checked twice. */
export async function hashRegularFile(
  absolute: string,
  relative: string,
  expectedSize?: number,
): Promise<{ size: number; sha256: string; executable: boolean }> {
  let handle: Awaited<ReturnType<typeof open>>;
  try {
    handle = await open(absolute, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ELOOP') {
      throw new PackagingError('TREE_SPECIAL_FILE', `${relative} is a symlink`, { file: relative });
    }
    throw new PackagingError('TREE_CHANGED', `${relative} could not be opened (${code})`, {
      file: relative,
      cause: error,
    });
  }
  try {
    const stat = await handle.stat();
    if (!stat.isFile()) {
      throw new PackagingError('TREE_SPECIAL_FILE', `${relative} is not a regular file`, {
        file: relative,
      });
    }
    if (expectedSize !== undefined && stat.size !== expectedSize) {
      throw new PackagingError('TREE_CHANGED', `${relative} changed size while being read`, {
        file: relative,
      });
    }
    if (stat.size > PACKAGE_LIMITS.fileBytes) {
      throw new PackagingError(
        'TREE_TOO_LARGE',
        `${relative} is ${stat.size} bytes, over the ${PACKAGE_LIMITS.fileBytes}-byte file limit`,
        { file: relative },
      );
    }
    const hash = createHash('sha256');
    const chunk = Buffer.alloc(Math.min(1024 * 1024, Math.max(1, stat.size)));
    let total = 0;
    for (;;) {
      const { bytesRead } = await handle.read(chunk, 0, chunk.length, total);
      if (bytesRead === 0) break;
      total += bytesRead;
      if (total > stat.size) break;
      hash.update(chunk.subarray(0, bytesRead));
    }
    if (total !== stat.size) {
      throw new PackagingError('TREE_CHANGED', `${relative} changed size while being read`, {
        file: relative,
      });
    }
    return { size: total, sha256: hash.digest('hex'), executable: (stat.mode & 0o111) !== 0 };
  } finally {
    await handle.close();
  }
}

function decodeName(raw: Buffer, parent: string): string {
  const name = raw.toString('utf8');
  if (!Buffer.from(name, 'utf8').equals(raw)) {
    throw new PackagingError(
      'TREE_PATH_INVALID',
      `${parent || '.'} contains a file name that is not valid UTF-8`,
      { file: parent || '.' },
    );
  }
  if (name.includes('\\')) {
    const path = parent === '' ? name : `${parent}/${name}`;
    throw new PackagingError('TREE_PATH_INVALID', `${path} contains a backslash`, { file: path });
  }
  return name;
}

/** Walks and hashes a package directory. Throws a PackagingError naming the first bad entry. */
export async function readPackageTree(root: string): Promise<PackageTree> {
  const rootStat = await lstat(root).catch((error: NodeJS.ErrnoException) => {
    throw new PackagingError('TREE_PATH_INVALID', `${root} does not exist (${error.code})`, {
      file: root,
    });
  });
  if (rootStat.isSymbolicLink() || !rootStat.isDirectory()) {
    throw new PackagingError('TREE_PATH_INVALID', `${root} is not a directory`, { file: root });
  }
  const files: TreeFile[] = [];
  const found: { relative: string; absolute: string; size: number }[] = [];
  let totalBytes = 0;

  const walk = async (relativeDir: string, depth: number): Promise<void> => {
    if (depth > PACKAGE_LIMITS.treeDepth) {
      throw new PackagingError(
        'TREE_PATH_INVALID',
        `${relativeDir} is nested deeper than ${PACKAGE_LIMITS.treeDepth} levels`,
        { file: relativeDir },
      );
    }
    const absoluteDir = relativeDir === '' ? root : join(root, relativeDir);
    const entries = (await readdir(absoluteDir, {
      withFileTypes: true,
      encoding: 'buffer',
    })) as unknown as Dirent<Buffer>[];
    for (const entry of entries) {
      const name = decodeName(entry.name, relativeDir);
      const relative = relativeDir === '' ? name : `${relativeDir}/${name}`;
      if (Buffer.byteLength(relative) > PACKAGE_LIMITS.pathBytes) {
        throw new PackagingError('TREE_PATH_INVALID', `${relative} is too long`, {
          file: relative,
        });
      }
      const absolute = join(root, relative);
      const stat = await lstat(absolute);
      if (stat.isSymbolicLink()) {
        throw new PackagingError('TREE_SPECIAL_FILE', `${relative} is a symlink`, {
          file: relative,
        });
      }
      if (stat.isDirectory()) {
        await walk(relative, depth + 1);
        continue;
      }
      if (!stat.isFile()) {
        throw new PackagingError(
          'TREE_SPECIAL_FILE',
          `${relative} is a special file (device, FIFO or socket)`,
          { file: relative },
        );
      }
      if (found.length >= PACKAGE_LIMITS.treeFiles) {
        throw new PackagingError(
          'TREE_TOO_LARGE',
          `package has more than ${PACKAGE_LIMITS.treeFiles} files (at ${relative})`,
          { file: relative },
        );
      }
      if (stat.size > PACKAGE_LIMITS.fileBytes) {
        throw new PackagingError(
          'TREE_TOO_LARGE',
          `${relative} is ${stat.size} bytes, over the ${PACKAGE_LIMITS.fileBytes}-byte file limit`,
          { file: relative },
        );
      }
      if (totalBytes + stat.size > PACKAGE_LIMITS.treeBytes) {
        throw new PackagingError(
          'TREE_TOO_LARGE',
          `package exceeds ${PACKAGE_LIMITS.treeBytes} bytes in total (at ${relative})`,
          { file: relative },
        );
      }
      totalBytes += stat.size;
      found.push({ relative, absolute, size: stat.size });
    }
  };

  // Walk and bound the whole tree first, so an oversized tree is refused before any byte is read.
  await walk('', 1);
  for (const entry of found) {
    const hashed = await hashRegularFile(entry.absolute, entry.relative, entry.size);
    files.push({ path: entry.relative, ...hashed });
  }
  files.sort((a, b) => comparePaths(a.path, b.path));
  return { root, files, totalBytes, treeSha256: treeDigest(files) };
}

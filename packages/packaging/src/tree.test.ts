import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PACKAGE_LIMITS } from './limits.js';
import { readPackageTree, TREE_DIGEST_DOMAIN, treeDigest } from './tree.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'tree-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

function sha(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

describe('clat-package-tree-v1 digest', () => {
  it('matches an independent computation of the specified byte layout', async () => {
    await mkdir(join(dir, 'b'));
    await writeFile(join(dir, 'b', 'x.txt'), 'xx');
    await writeFile(join(dir, 'a.txt'), 'a');
    await writeFile(join(dir, 'B.txt'), 'upper');
    const tree = await readPackageTree(dir);
    // Byte order: 'B' (0x42) < 'a' (0x61) < 'b'.
    expect(tree.files.map((f) => f.path)).toEqual(['B.txt', 'a.txt', 'b/x.txt']);
    const parts: Buffer[] = [Buffer.from(`${TREE_DIGEST_DOMAIN}\0`)];
    for (const [path, text] of [
      ['B.txt', 'upper'],
      ['a.txt', 'a'],
      ['b/x.txt', 'xx'],
    ] as const) {
      const len = Buffer.alloc(8);
      len.writeBigUInt64BE(BigInt(Buffer.byteLength(path)));
      const size = Buffer.alloc(8);
      size.writeBigUInt64BE(BigInt(Buffer.byteLength(text)));
      parts.push(len, Buffer.from(path), size, Buffer.from(sha(text), 'ascii'));
    }
    expect(tree.treeSha256).toBe(createHash('sha256').update(Buffer.concat(parts)).digest('hex'));
    expect(treeDigest([...tree.files].reverse())).toBe(tree.treeSha256);
  });

  it('changes when content, a name or a size changes', async () => {
    await writeFile(join(dir, 'a'), 'one');
    const first = (await readPackageTree(dir)).treeSha256;
    await writeFile(join(dir, 'a'), 'two');
    const second = (await readPackageTree(dir)).treeSha256;
    await writeFile(join(dir, 'b'), '');
    const third = (await readPackageTree(dir)).treeSha256;
    expect(new Set([first, second, third]).size).toBe(3);
  });

  it('rejects symlinks (even inside the tree), naming the path', async () => {
    await writeFile(join(dir, 'real'), 'x');
    await mkdir(join(dir, 'sub'));
    await symlink('../real', join(dir, 'sub', 'link'));
    await expect(readPackageTree(dir)).rejects.toMatchObject({
      code: 'TREE_SPECIAL_FILE',
      message: 'sub/link is a symlink',
    });
  });

  it('rejects a symlinked root and special files', async () => {
    await writeFile(join(dir, 'f'), 'x');
    const link = `${dir}-link`;
    await symlink(dir, link);
    try {
      await expect(readPackageTree(link)).rejects.toMatchObject({ code: 'TREE_PATH_INVALID' });
    } finally {
      await rm(link, { force: true });
    }
    execFileSync('mkfifo', [join(dir, 'pipe')]);
    await expect(readPackageTree(dir)).rejects.toMatchObject({
      code: 'TREE_SPECIAL_FILE',
      message: expect.stringContaining('pipe'),
    });
  });

  it('rejects non-UTF-8 names and backslashes', async () => {
    const raw = Buffer.concat([Buffer.from(`${dir}/bad-`), Buffer.from([0xff])]);
    await writeFile(raw, 'x');
    await expect(readPackageTree(dir)).rejects.toMatchObject({ code: 'TREE_PATH_INVALID' });
    await rm(raw);
    await writeFile(join(dir, 'a\\b'), 'x');
    await expect(readPackageTree(dir)).rejects.toMatchObject({
      code: 'TREE_PATH_INVALID',
      message: 'a\\b contains a backslash',
    });
  });

  it('rejects trees nested deeper than 32 levels', async () => {
    const deep = join(dir, ...Array.from({ length: 33 }, (_, i) => `d${i}`));
    await mkdir(deep, { recursive: true });
    await writeFile(join(deep, 'f'), 'x');
    await expect(readPackageTree(dir)).rejects.toMatchObject({ code: 'TREE_PATH_INVALID' });
  });

  it('rejects an oversized file (sparse, so the test stays cheap) and too many files', async () => {
    const { truncate } = await import('node:fs/promises');
    await writeFile(join(dir, 'big.bin'), '');
    await truncate(join(dir, 'big.bin'), PACKAGE_LIMITS.fileBytes + 1);
    await expect(readPackageTree(dir)).rejects.toMatchObject({
      code: 'TREE_TOO_LARGE',
      message: `big.bin is ${PACKAGE_LIMITS.fileBytes + 1} bytes, over the ${PACKAGE_LIMITS.fileBytes}-byte file limit`,
    });
    await rm(join(dir, 'big.bin'));
    await mkdir(join(dir, 'many'));
    // One more file than allowed, created by xargs + touch: tens of thousands of writeFile calls
    // would dominate the test's time.
    const { execFileSync } = await import('node:child_process');
    execFileSync('sh', [
      '-c',
      `cd "$1" && seq 0 ${PACKAGE_LIMITS.treeFiles} | sed 's/^/f/' | xargs touch`,
      'sh',
      join(dir, 'many'),
    ]);
    await expect(readPackageTree(dir)).rejects.toMatchObject({
      code: 'TREE_TOO_LARGE',
      message: expect.stringContaining(`more than ${PACKAGE_LIMITS.treeFiles} files`),
    });
  }, 60_000);

  it('rejects a tree whose files exceed the total size limit', async () => {
    const { truncate } = await import('node:fs/promises');
    for (const name of ['a.bin', 'b.bin', 'c.bin']) {
      await writeFile(join(dir, name), '');
      await truncate(join(dir, name), PACKAGE_LIMITS.fileBytes - 1);
    }
    await expect(readPackageTree(dir)).rejects.toMatchObject({
      code: 'TREE_TOO_LARGE',
      message: expect.stringContaining(`exceeds ${PACKAGE_LIMITS.treeBytes} bytes in total`),
    });
  });
});

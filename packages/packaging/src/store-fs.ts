/**
 * File-system steps of the plugin store: read-only tree copies and removal of read-only trees
 * (its lock file is @clat/node-files' `tryFileLock`).
 * @module
 */
import { constants } from 'node:fs';
import { chmod, mkdir, open, readdir, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fsyncDirectory } from '@clat/node-files';
import type { InspectedPackage } from './inspect.js';

/** Copies an inspected tree file by file (0400, 0500 when executable), fsyncing files and dirs. */
export async function copyTree(inspected: InspectedPackage, dest: string): Promise<void> {
  const dirs = new Set<string>([dest]);
  await mkdir(dest, { mode: 0o700 });
  for (const file of inspected.tree.files) {
    const target = join(dest, ...file.path.split('/'));
    const parent = dirname(target);
    if (!dirs.has(parent)) {
      await mkdir(parent, { recursive: true, mode: 0o700 });
      dirs.add(parent);
    }
    const source = await open(
      join(inspected.dir, file.path),
      constants.O_RDONLY | constants.O_NOFOLLOW,
    );
    try {
      const out = await open(target, 'wx', 0o600);
      try {
        const buffer = Buffer.alloc(Math.min(1024 * 1024, Math.max(1, file.size)));
        let position = 0;
        for (;;) {
          const { bytesRead } = await source.read(buffer, 0, buffer.length, position);
          if (bytesRead === 0) break;
          // writeFile writes all it is given from the file's position, retrying a short write
          // (a disk filling up) until the disk's own error: `write` took a short one as whole.
          await out.writeFile(buffer.subarray(0, bytesRead));
          position += bytesRead;
        }
        await out.chmod(file.executable ? 0o500 : 0o400);
        await out.sync();
      } finally {
        await out.close();
      }
    } finally {
      await source.close();
    }
  }
  for (const dir of [...dirs].sort((a, b) => b.length - a.length)) await fsyncDirectory(dir);
}

/** Makes a tree writable again so it can be removed (artifact files are read-only). */
export async function removeTree(path: string): Promise<void> {
  await rm(path, { recursive: true, force: true }).catch(async () => {
    const walk = async (dir: string): Promise<void> => {
      await chmod(dir, 0o700).catch(() => undefined);
      for (const entry of await readdir(dir, { withFileTypes: true }).catch(() => [])) {
        if (entry.isDirectory()) await walk(join(dir, entry.name));
      }
    };
    await walk(path);
    await rm(path, { recursive: true, force: true });
  });
}

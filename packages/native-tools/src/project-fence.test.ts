import { mkdir, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { NativeToolError } from './errors.js';
import { ProjectFence } from './project-fence.js';
import { tempDirs } from './test-support.js';

const dirs = tempDirs();
let root: string;
let outside: string;
let fence: ProjectFence;

async function code(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof NativeToolError) return error.code;
    throw error;
  }
  return 'resolved';
}

beforeEach(async () => {
  root = await dirs.make('clat-fence-root-');
  outside = await dirs.make('clat-fence-out-');
  await writeFile(join(root, 'inside.txt'), 'in');
  await writeFile(join(outside, 'secret.txt'), 'secret');
  await symlink(outside, join(root, 'escape'));
  await symlink(join(outside, 'secret.txt'), join(root, 'secret-link'));
  await symlink(join(root, 'inside.txt'), join(root, 'inner-link'));
  await symlink(join(outside, 'nowhere'), join(root, 'dangling'));
  fence = new ProjectFence(root);
});
afterEach(() => dirs.cleanup());

describe('ProjectFence reads', () => {
  it('resolves project-relative paths and displays them relative', async () => {
    const path = await fence.resolveRead('inside.txt', { strict: true });
    expect(path).toEqual({
      absolute: join(root, 'inside.txt'),
      display: 'inside.txt',
      exists: true,
    });
    const viaLink = await fence.resolveRead('inner-link', { strict: true });
    expect(viaLink.absolute).toBe(join(root, 'inside.txt'));
  });

  it('rejects ".." in relative paths for model and plugin calls', async () => {
    expect(await code(fence.resolveRead('../x', { strict: false }))).toBe(
      'HOST_PATH_OUTSIDE_PROJECT',
    );
    expect(await code(fence.resolveRead('a/../../x', { strict: true }))).toBe(
      'HOST_PATH_OUTSIDE_PROJECT',
    );
  });

  it('rejects symlinks that lead out, for both callers, when the path is relative', async () => {
    for (const strict of [false, true]) {
      expect(await code(fence.resolveRead('secret-link', { strict }))).toBe(
        'HOST_PATH_OUTSIDE_PROJECT',
      );
      expect(await code(fence.resolveRead('escape/secret.txt', { strict }))).toBe(
        'HOST_PATH_OUTSIDE_PROJECT',
      );
    }
  });

  it('lets the model read absolute paths anywhere but keeps plugins inside', async () => {
    const secret = join(outside, 'secret.txt');
    expect((await fence.resolveRead(secret, { strict: false })).display).toBe(secret);
    expect(await code(fence.resolveRead(secret, { strict: true }))).toBe(
      'HOST_PATH_OUTSIDE_PROJECT',
    );
    expect(await code(fence.resolveRead(join(root, 'secret-link'), { strict: true }))).toBe(
      'HOST_PATH_OUTSIDE_PROJECT',
    );
    expect(
      await code(fence.resolveRead(`${root}/../${outside.split('/').pop()}`, { strict: true })),
    ).toBe('HOST_PATH_OUTSIDE_PROJECT');
  });

  it('reports missing paths and refuses empty or NUL paths', async () => {
    expect(await code(fence.resolveRead('missing.txt', { strict: true }))).toBe('NATIVE_NOT_FOUND');
    expect(await code(fence.resolveRead('', { strict: true }))).toBe('NATIVE_INVALID_ARGUMENTS');
    expect(await code(fence.resolveRead('a\0b', { strict: true }))).toBe(
      'NATIVE_INVALID_ARGUMENTS',
    );
  });
});

describe('ProjectFence writes', () => {
  const plugin = { strict: true, allowAbsolute: false };
  const model = { strict: false, allowAbsolute: false };

  it('places new files under the real root, creating missing directories later', async () => {
    const path = await fence.resolveWrite('new/dir/file.txt', plugin);
    expect(path).toEqual({
      absolute: join(root, 'new/dir/file.txt'),
      display: 'new/dir/file.txt',
      exists: false,
    });
  });

  it('rejects ".." even in absolute paths', async () => {
    expect(await code(fence.resolveWrite('../x', model))).toBe('HOST_PATH_OUTSIDE_PROJECT');
    expect(
      await code(fence.resolveWrite(`${root}/sub/../../x`, { strict: false, allowAbsolute: true })),
    ).toBe('HOST_PATH_OUTSIDE_PROJECT');
  });

  it('rejects creating a file through a symlinked directory that leads out', async () => {
    expect(await code(fence.resolveWrite('escape/created.txt', model))).toBe(
      'HOST_PATH_OUTSIDE_PROJECT',
    );
    expect(await code(fence.resolveWrite('escape/deeper/created.txt', plugin))).toBe(
      'HOST_PATH_OUTSIDE_PROJECT',
    );
  });

  it('rejects overwriting through a file symlink that leads out, and dangling symlinks', async () => {
    expect(await code(fence.resolveWrite('secret-link', model))).toBe('HOST_PATH_OUTSIDE_PROJECT');
    expect(await code(fence.resolveWrite('dangling', model))).toBe('HOST_PATH_OUTSIDE_PROJECT');
    expect(await code(fence.resolveWrite('dangling/child.txt', model))).toBe(
      'HOST_PATH_OUTSIDE_PROJECT',
    );
  });

  it('allows absolute writes outside only for model calls with Full Access', async () => {
    const target = join(outside, 'out.txt');
    expect(await code(fence.resolveWrite(target, model))).toBe('HOST_PATH_OUTSIDE_PROJECT');
    expect(await code(fence.resolveWrite(target, { strict: true, allowAbsolute: true }))).toBe(
      'HOST_PATH_OUTSIDE_PROJECT',
    );
    const allowed = await fence.resolveWrite(target, { strict: false, allowAbsolute: true });
    expect(allowed.absolute).toBe(target);
  });

  it('accepts absolute paths inside the project for plugins', async () => {
    await mkdir(join(root, 'sub'));
    const path = await fence.resolveWrite(join(root, 'sub', 'a.txt'), plugin);
    expect(path.display).toBe('sub/a.txt');
  });
});

import { mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  canonicalProjectRoot,
  isTrusted,
  listTrusted,
  trustProject,
  untrustProject,
} from './trust-store.js';

let dir: string;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'clat-trust-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('trust store', () => {
  it('trusts the real path, so a symlink resolves to the same project', async () => {
    const real = join(dir, 'real');
    await mkdir(real);
    await symlink(real, join(dir, 'link'));
    const file = join(dir, 'home', 'trust.json');
    const root = await canonicalProjectRoot('link', dir);
    expect(root).toBe(await canonicalProjectRoot('real', dir));
    expect(await isTrusted(file, root)).toBe(false);
    await trustProject(file, root);
    expect(await isTrusted(file, root)).toBe(true);
    expect(await listTrusted(file)).toEqual({ roots: [root], issues: [] });
    expect(await untrustProject(file, root)).toBe(true);
    expect(await untrustProject(file, root)).toBe(false);
    expect(JSON.parse(await readFile(file, 'utf8'))).toEqual({ version: 1, projects: {} });
  });

  it('trusts only absolute keys holding what "clat trust" records', async () => {
    const file = join(dir, 'trust.json');
    const entries = { '/a': false, '/b': null, '/c': {}, d: { trustedAt: 'x' } };
    await writeFile(file, JSON.stringify({ version: 1, projects: entries }));
    for (const root of ['/a', '/b', '/c', 'd']) expect(await isTrusted(file, root)).toBe(false);
    const { roots, issues } = await listTrusted(file);
    expect(roots).toEqual([]);
    expect(issues).toHaveLength(4);
    expect(issues[0]).toBe(
      `${file}: projects: "/a" is not trusted, as its value is not what "clat trust" records; run "clat trust --remove /a" to drop it`,
    );
    await trustProject(file, '/a');
    expect(await isTrusted(file, '/a')).toBe(true);
  });

  it('names a missing project directory', async () => {
    await expect(canonicalProjectRoot('nope', dir)).rejects.toThrow(/nope" does not exist/);
  });

  it('refuses a file as a project directory, naming it and its directory', async () => {
    await writeFile(join(dir, 'afile'), '');
    await expect(canonicalProjectRoot('afile', dir)).rejects.toThrow(
      `project directory ${JSON.stringify(join(dir, 'afile'))} is not a directory; name the project's directory, such as ${dir}`,
    );
  });
});

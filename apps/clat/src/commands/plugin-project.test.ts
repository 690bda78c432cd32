import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { packageDirOf } from './plugin-project.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'clat-plugin-project-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('packageDirOf', () => {
  it('resolves a plugin project to the package its package.json names, once built', async () => {
    const project = join(dir, 'project');
    await mkdir(project, { recursive: true });
    await writeFile(join(project, 'package.json'), '{"clat":{"package":"dist/package"}}');
    await expect(packageDirOf(project)).rejects.toMatchObject({
      code: 'MANIFEST_INVALID',
      message: `${join(project, 'dist/package/clat-plugin.json')} does not exist; build the plugin first (npm run build)`,
    });
    await mkdir(join(project, 'dist/package'), { recursive: true });
    await writeFile(join(project, 'dist/package/clat-plugin.json'), '{}');
    expect(await packageDirOf(project)).toBe(join(project, 'dist/package'));
  });

  it('leaves packages, files and plain directories alone, and refuses a package outside', async () => {
    const plain = join(dir, 'plain');
    await mkdir(plain, { recursive: true });
    expect(await packageDirOf(plain)).toBe(plain);
    await writeFile(join(plain, 'package.json'), '{"name":"x"}');
    expect(await packageDirOf(plain)).toBe(plain);
    expect(await packageDirOf(join(dir, 'x.clatpkg'))).toBe(join(dir, 'x.clatpkg'));
    // A package's manifest given for the package: its directory.
    await writeFile(join(plain, 'clat-plugin.json'), '{}');
    expect(await packageDirOf(join(plain, 'clat-plugin.json'))).toBe(plain);
    await writeFile(join(plain, 'package.json'), '{"clat":{"package":"../elsewhere"}}');
    await expect(packageDirOf(plain)).rejects.toMatchObject({
      message: expect.stringContaining('clat.package must be a directory inside the project'),
    });
  });
});
